#include "gridcoll/system/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::sys {

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
    std::vector<char*> v;
    for (const auto& a : argv) v.push_back(const_cast<char*>(a.c_str()));
    v.push_back(nullptr);
    return v;
}

[[noreturn]] void exec_or_die(const std::vector<std::string>& argv) {
    auto v = c_argv(argv);
    execvp(v[0], v.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0].c_str(), std::strerror(errno));
    _exit(127);
}

// In a child just forked by `parent`: SIGTERM comes to it when the thread that forked it ends
// (a gridcoll or harness worker killed with SIGKILL, which forwards nothing), so that an
// smpirun or mpirun never outlives the run that started it (both end their own children on
// SIGTERM). Callers wait for their child on the thread that started it.
void die_with_parent(pid_t parent) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);  // the parent was gone before the call
}

int decode(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

int reap(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return decode(st);
}

// Waits for a (possibly non-child) process to exit, at most timeout_s. True if it exited.
bool wait_gone(pid_t pid, double timeout_s) {
    const int pfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (pfd < 0) return !alive(pid);
    pollfd p{pfd, POLLIN, 0};
    int r;
    do r = poll(&p, 1, static_cast<int>(timeout_s * 1000));
    while (r < 0 && errno == EINTR);
    close(pfd);
    return r > 0;
}

}  // namespace

ProcResult run_capture(const std::vector<std::string>& argv) {
    Piped p = spawn_piped(argv);
    ProcResult r;
    char buf[4096];
    for (;;) {
        const ssize_t n = read(p.fd, buf, sizeof buf);
        if (n > 0)
            r.out.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    r.status = wait_exit(p);
    return r;
}

namespace {

// While alive, SIGINT and SIGTERM go to the child's process group instead of to us. Once the
// child is done, a signal so passed on is raised again here if the process had a handler for it
// (Python's KeyboardInterrupt, the harness's SIGTERM): Ctrl-C stops a sweep, not only its point.
// Made before the fork and told the child's pid after it (adopt), so that a signal arriving
// between the two is kept and passed on then, not left to the old handler while the child runs
// on (a sweep's Ctrl-C during that moment used to wait for its point's whole simulation).
// Once the child has ended after a signal passed on, what is left of its group is ended too
// (end_left_over). A signal the process ignored before stays ignored (a job started with nohup
// or in a script's background).
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_passed_on = 0;
void forward(int sig) {
    if (g_child > 0) kill(-g_child, sig);
    g_passed_on = sig;
}
bool handled(const struct sigaction& sa) {
    return (sa.sa_flags & SA_SIGINFO) != 0 || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
}
bool ignored(const struct sigaction& sa) { return (sa.sa_flags & SA_SIGINFO) == 0 && sa.sa_handler == SIG_IGN; }
class ForwardSignals {
public:
    ForwardSignals() {
        g_child = 0;
        g_passed_on = 0;
        struct sigaction sa {};
        sa.sa_handler = forward;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, nullptr, &old_int_);
        sigaction(SIGTERM, nullptr, &old_term_);
        if (!ignored(old_int_)) sigaction(SIGINT, &sa, nullptr);
        if (!ignored(old_term_)) sigaction(SIGTERM, &sa, nullptr);
    }
    // The child (leader of its own process group) now gets the signals, and one that came since
    // the constructor is passed on at once.
    void adopt(pid_t child) {
        g_child = child;
        if (const int sig = g_passed_on; sig != 0) kill(-child, sig);
    }
    ~ForwardSignals() {
        g_child = 0;
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
        const int sig = g_passed_on;
        g_passed_on = 0;
        if ((sig == SIGINT && handled(old_int_)) || (sig == SIGTERM && handled(old_term_))) raise(sig);
    }
    ForwardSignals(const ForwardSignals&) = delete;
    ForwardSignals& operator=(const ForwardSignals&) = delete;
    bool passed_on() const { return g_passed_on != 0; }

private:
    struct sigaction old_int_ {}, old_term_ {};
};

// Whether a process of `group` still runs (one that has exited but is not yet reaped by its new
// parent does not).
bool group_running(pid_t group) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator("/proc", ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
        std::ifstream f(it->path() / "stat");
        std::string s;
        if (!std::getline(f, s)) continue;
        const auto paren = s.rfind(')');
        if (paren == std::string::npos) continue;
        char state = 0;
        long ppid = 0, pgrp = 0;
        if (std::sscanf(s.c_str() + paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == group && state != 'Z')
            return true;
    }
    return false;
}

// The members of an ended child's process group still running after a signal we passed on:
// what a non-interactive shell starts in the background ignores SIGINT, so smpirun's simulator
// runs on when Ctrl-C comes before smpirun's trap has noted its pid, holding our pipe for its
// whole simulation. They get SIGTERM, and SIGKILL after 2 s.
void end_left_over(pid_t group) {
    if (kill(-group, SIGTERM) != 0) return;  // nothing left
    for (int i = 0; i < 40 && group_running(group); ++i) poll(nullptr, 0, 50);
    kill(-group, SIGKILL);
}

// For a run reading a child's output: once a signal has been passed on and the child has ended,
// the rest of its group is ended and `status` is the child's. False while the child runs.
bool ended_after_signal(const ForwardSignals& fwd, Piped& p, int& status) {
    int st = 0;
    if (!fwd.passed_on() || waitpid(p.pid, &st, WNOHANG) != p.pid) return false;
    end_left_over(p.pid);
    p.pid = -1;
    close(p.fd), p.fd = -1;
    status = decode(st);
    return true;
}

}  // namespace

int run_foreground(const std::vector<std::string>& argv) {
    const pid_t parent = getpid();
    ForwardSignals fwd;
    const pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        die_with_parent(parent);
        exec_or_die(argv);
    }
    setpgid(pid, pid);
    fwd.adopt(pid);
    const int status = reap(pid);
    if (fwd.passed_on()) end_left_over(pid);
    return status;
}

int run_lines(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line) {
    return run_lines(argv, on_line, Watch{});
}

namespace {

// Output of a piped child, chunk by chunk, as whole lines.
struct LineSplitter {
    std::string buf;
    void add(const char* data, std::size_t n, const std::function<void(const std::string&)>& on_line) {
        buf.append(data, n);
        std::size_t start = 0;
        for (std::size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1)
            on_line(buf.substr(start, nl - start));
        buf.erase(0, start);
    }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int run_lines(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line,
              const Watch& w) {
    ForwardSignals fwd;
    Piped p = spawn_piped(argv, false);
    fwd.adopt(p.pid);
    const bool watched = w.stall_s > 0;
    const int poll_ms = watched ? std::max(1, static_cast<int>(w.poll_s * 1000)) : -1;
    LineSplitter lines;
    std::uint64_t mark = watched && w.progress ? w.progress() : 0;
    auto moved = std::chrono::steady_clock::now(), polled = moved;
    for (bool open = true;;) {
        if (open) {
            if (int status = 0; ended_after_signal(fwd, p, status)) return status;
            pollfd pf{p.fd, POLLIN, 0};
            const int ms = fwd.passed_on() && (poll_ms < 0 || poll_ms > 200) ? 200 : poll_ms;
            if (poll(&pf, 1, ms) > 0) {
                char chunk[4096];
                const ssize_t n = read(p.fd, chunk, sizeof chunk);
                if (n > 0)
                    lines.add(chunk, static_cast<std::size_t>(n), on_line), moved = std::chrono::steady_clock::now();
                else if (n == 0 || errno != EINTR)
                    open = false;
            }
            if (!open && !lines.buf.empty()) on_line(lines.buf);
            if (!open && !watched) return wait_exit(p);
        } else {
            int st = 0;
            if (waitpid(p.pid, &st, WNOHANG) == p.pid) {
                p.pid = -1;
                close(p.fd), p.fd = -1;
                return decode(st);
            }
            poll(nullptr, 0, poll_ms);
        }
        if (!watched) continue;
        if (w.progress && seconds_since(polled) >= w.poll_s) {
            polled = std::chrono::steady_clock::now();
            if (const std::uint64_t v = w.progress(); v != mark) mark = v, moved = polled;
        }
        if (seconds_since(moved) > w.stall_s) {
            stop(p, 2);
            return kStalled;
        }
    }
}

pid_t spawn_daemon(const std::vector<std::string>& argv, const std::string& log_file) {
    const pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        setsid();
        const int in = open("/dev/null", O_RDONLY);
        const int out = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (in >= 0) dup2(in, 0);
        if (out >= 0) {
            dup2(out, 1);
            dup2(out, 2);
        }
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        exec_or_die(argv);
    }
    return pid;
}

Piped spawn_piped(const std::vector<std::string>& argv, bool stderr_too) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        die_with_parent(parent);
        dup2(fds[1], 1);
        if (stderr_too) dup2(fds[1], 2);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        exec_or_die(argv);
    }
    setpgid(pid, pid);
    close(fds[1]);
    return {pid, fds[0]};
}

bool read_line(Piped& p, std::string& line, double timeout_s) {
    line.clear();
    for (;;) {
        pollfd pf{p.fd, POLLIN, 0};
        int r;
        const int ms = timeout_s < 0 ? -1 : static_cast<int>(timeout_s * 1000);
        do r = poll(&pf, 1, ms);
        while (r < 0 && errno == EINTR);
        if (r <= 0) return false;
        char c;
        const ssize_t n = read(p.fd, &c, 1);
        if (n <= 0) return !line.empty();
        if (c == '\n') return true;
        line += c;
    }
}

int wait_exit(Piped& p) {
    if (p.pid <= 0) return 0;
    const int st = reap(p.pid);
    p.pid = -1;
    if (p.fd >= 0) close(p.fd), p.fd = -1;
    return st;
}

void stop(Piped& p, double grace_s) {
    if (p.pid <= 0) return;
    kill(-p.pid, SIGTERM);
    if (!wait_gone(p.pid, grace_s)) kill(-p.pid, SIGKILL);
    wait_exit(p);
}

bool alive(pid_t pid) {
    if (pid <= 0 || kill(pid, 0) != 0) return false;
    std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    std::getline(st, s);
    const auto close_paren = s.rfind(')');
    return close_paren == std::string::npos || close_paren + 2 >= s.size() || s[close_paren + 2] != 'Z';
}

void terminate(pid_t pid, double grace_s) {
    if (!alive(pid)) return;
    kill(pid, SIGTERM);
    if (!wait_gone(pid, grace_s)) {
        kill(pid, SIGKILL);
        wait_gone(pid, 1);
    }
    int st;
    waitpid(pid, &st, WNOHANG);  // reap it if it was ours
}

}  // namespace gridcoll::sys
