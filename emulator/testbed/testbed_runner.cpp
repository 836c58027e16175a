#include "gridcoll/emulator/testbed_runner.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/system/process.hpp"
#include "gridcoll/emulator/testbed_remote.hpp"

namespace fs = std::filesystem;

namespace gridcoll::emulate {

using namespace gridcoll::sys;

std::string default_state_root() {
    const char* env = std::getenv("GRIDCOLL_STATE_ROOT");
    return env && *env ? env : "/run/gridcoll";
}

namespace {

bool on_path(const std::string& prog) {
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
    std::string dir;
    while (std::getline(ss, dir, ':'))
        if (!dir.empty() && access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
    return false;
}

// SIGINT, SIGTERM and SIGHUP mark the run interrupted; a handler the process had before (the
// Python harness's KeyboardInterrupt) is called too, so that the whole sweep stops.
std::atomic<bool> g_interrupted{false};
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_before[3] = {};
void on_signal(int sig) {
    g_interrupted = true;
    for (int i = 0; i < 3; ++i)
        if (kStopSignals[i] == sig && !(g_before[i].sa_flags & SA_SIGINFO) && g_before[i].sa_handler != SIG_DFL &&
            g_before[i].sa_handler != SIG_IGN)
            g_before[i].sa_handler(sig);
}

void run_checked(const Command& c) {
    throw_if_interrupted();
    const ProcResult r = run_capture(c.argv);
    if (r.status != 0) {
        std::string out = r.out;
        while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
        throw Error("command failed (exit " + std::to_string(r.status) + "): " + c.text() + (out.empty() ? "" : ": " + out));
    }
}

// Waits until `file` exists, the daemon dies, or timeout_s passes (inotify on its directory).
bool wait_ready(const std::string& file, pid_t pid, double timeout_s) {
    const std::string dir = fs::path(file).parent_path();
    const int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (in >= 0) inotify_add_watch(in, dir.c_str(), IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE);
    double waited = 0;
    bool ok = false;
    for (;;) {
        if (fs::exists(file)) { ok = true; break; }
        if (!alive(pid) || interrupted() || waited >= timeout_s) break;
        // Wake on a change in the directory, or every 100 ms to notice a dead daemon.
        pollfd p{in, POLLIN, 0};
        poll(&p, in >= 0 ? 1 : 0, 100);
        waited += 0.1;
        char buf[4096];
        if (in >= 0) while (read(in, buf, sizeof buf) > 0) {}
    }
    if (in >= 0) close(in);
    return ok;
}

std::vector<std::string> netns_list() {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/run/netns", ec)) out.push_back(e.path().filename());
    return out;
}

bool is_testbed_ns(const std::string& n, int* slot) {
    if (n.size() < 4 || n[0] != 'g' || n[1] != 'c' || n[2] < '0' || n[2] >= '0' + max_slots || n[3] != '-') return false;
    if (slot) *slot = n[2] - '0';
    return true;
}

// Delay lines (anywhere) serving namespaces of `slot` (any slot if < 0).
std::vector<pid_t> delaylines_of_slot(int slot) {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream f(e.path() / "cmdline", std::ios::binary);
        std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (cmd.find("gridcoll-delayline") == std::string::npos) continue;
        const std::string tag = std::string("--netns-a") + '\0' + "gc" + (slot < 0 ? "" : std::to_string(slot) + "-");
        if (cmd.find(tag) != std::string::npos) out.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return out;
}

std::vector<std::string> mounts_under(const std::string& root) {
    std::vector<std::string> out;
    std::ifstream f("/proc/self/mountinfo");
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream ss(line);
        std::string a, b, c, d, mnt;
        ss >> a >> b >> c >> d >> mnt;
        if (mnt.rfind(root + "/", 0) == 0) out.push_back(mnt);
    }
    return out;
}

}  // namespace

// Processes whose network namespace is `ns` (by inode, like `ip netns pids`).
std::vector<pid_t> pids_in_netns(const std::string& ns) {
    std::vector<pid_t> out;
    struct stat target{};
    if (stat(("/run/netns/" + ns).c_str(), &target) != 0) return out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        struct stat st{};
        if (stat((e.path() / "ns/net").c_str(), &st) == 0 && st.st_ino == target.st_ino && st.st_dev == target.st_dev)
            out.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return out;
}

void install_interrupt_handlers() {
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) {
        struct sigaction now{};
        sigaction(kStopSignals[i], nullptr, &now);
        if (now.sa_handler == on_signal && !(now.sa_flags & SA_SIGINFO)) continue;  // installed already
        sigaction(kStopSignals[i], &sa, &g_before[i]);
    }
}
bool interrupted() { return g_interrupted.load(); }
void throw_if_interrupted() {
    if (interrupted()) throw Error("interrupted");
}

void require_privileges() {
    std::vector<std::string> missing;
    if (geteuid() != 0) missing.push_back("root (network namespaces, TAP devices and tc need CAP_NET_ADMIN / CAP_SYS_ADMIN)");
    if (access("/dev/net/tun", R_OK | W_OK) != 0) missing.push_back("/dev/net/tun (the tun module) for the delay line");
    for (const char* p : {"ip", "tc", "nsenter", "unshare", "sysctl"})
        if (!on_path(p)) missing.push_back(std::string("the '") + p + "' program (apt-get install iproute2 util-linux procps)");
    if (missing.empty()) return;
    std::string msg = "gridcoll emulate needs:";
    for (const auto& m : missing) msg += "\n  - " + m;
    throw Error(msg);
}

bool probe_netem() {
    const std::string ns = "gcprobe-" + std::to_string(getpid());
    if (run_capture({"ip", "netns", "add", ns}).status != 0) return false;
    run_capture({"ip", "-n", ns, "link", "set", "lo", "up"});
    const bool ok = run_capture({"tc", "-n", ns, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"}).status == 0;
    run_capture({"ip", "netns", "del", ns});
    return ok;
}

void make_room_for_neighbours(long entries, const Log& log) {
    const std::string dir = "/proc/sys/net/ipv4/neigh/default/";
    auto read = [&](const char* key) {
        std::ifstream f(dir + key);
        long v = 0;
        return f >> v ? v : -1L;
    };
    const long t2 = read("gc_thresh2"), t3 = read("gc_thresh3");
    const long want3 = 2 * entries + 1024, want2 = entries + 512;  // room for the machine's own too
    if (t3 < 0 || t3 >= want3) return;
    bool ok = true;
    for (const auto& [key, value] : {std::pair{"gc_thresh3", want3}, std::pair{"gc_thresh2", std::max(t2, want2)}}) {
        std::ofstream f(dir + key);
        ok = static_cast<bool>(f << value << "\n") && static_cast<bool>(f.flush()) && ok;
    }
    if (ok)
        log("raised the kernel's neighbour table (shared by all namespaces) to gc_thresh3 " + std::to_string(want3) +
            " (was " + std::to_string(t3) + "): the testbed's hosts may need " + std::to_string(entries) + " ARP entries");
    else
        log("warning: cannot raise net.ipv4.neigh.default.gc_thresh3 from " + std::to_string(t3) + " to " +
            std::to_string(want3) + ": beyond that many ARP entries new connections fail");
}

bool allow_congestion_control(const std::string& name, const Log& log) {
    const std::string dir = "/proc/sys/net/ipv4/";
    auto words = [&](const std::string& key) {
        std::ifstream f(dir + key);
        std::vector<std::string> v;
        for (std::string w; f >> w;) v.push_back(w);
        return v;
    };
    const auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), name) != v.end(); };
    if (!has(words("tcp_available_congestion_control"))) {
        log("note: this kernel has no " + name + " congestion control: the hosts keep the machine's default");
        return false;
    }
    auto allowed = words("tcp_allowed_congestion_control");
    if (has(allowed)) return true;
    std::string list;
    for (const auto& w : allowed) list += w + " ";
    std::ofstream f(dir + "tcp_allowed_congestion_control");
    if (!(f << list << name << "\n") || !f.flush()) {
        log("note: cannot allow " + name + " congestion control in namespaces: the hosts keep the machine's default");
        return false;
    }
    log("allowed " + name + " congestion control in namespaces (net.ipv4.tcp_allowed_congestion_control)");
    return true;
}

TestbedState read_state(const std::string& dir) {
    const std::string file = dir + "/state";
    std::ifstream f(file);
    if (!f) throw Error(file + ": cannot read the testbed's state file");
    TestbedState s;
    s.dir = dir;
    std::string line;
    int lineno = 0;
    while (std::getline(f, line)) {
        ++lineno;
        const auto eq = line.find('=');
        if (line.empty() || line[0] == '#') continue;
        if (eq == std::string::npos) throw Error(file + ":" + std::to_string(lineno) + ": expected key=value, got '" + line + "'");
        const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
        try {
            if (k == "name") s.name = v;
            else if (k == "platform") s.platform_file = v;
            else if (k == "shaper") s.shaper = v;
            else if (k == "slot") s.slot = std::stoi(v);
            else if (k == "native_delay") s.native_delay_s = std::stod(v);
            else if (k == "containers") s.containers = v == "1";
            else if (k == "windows") s.windows = v == "1";
            else if (k == "dilation") s.dilation = std::stod(v);
            else if (k == "status") s.status = v;
            else if (k == "owner") s.owner = static_cast<pid_t>(std::stol(v));
            else if (k == "netns") s.namespaces.push_back(v);
            else if (k == "uts") s.uts_files.push_back(v);
            else if (k == "daemon") s.daemons.push_back(static_cast<pid_t>(std::stol(v)));
            else if (k == "machines") s.machines = v;
            else if (k == "part") s.part = std::stoi(v);
            else if (k == "remote") s.remote.push_back(v);
            else if (k == "gridcoll") s.gridcoll = v;
            else throw Error("unknown key '" + k + "'");
        } catch (const std::exception& e) {
            throw Error(file + ":" + std::to_string(lineno) + ": " + line + ": " + e.what());
        }
    }
    return s;
}

void write_state(const TestbedState& s) {
    std::ostringstream o;
    o << "# gridcoll emulate testbed state: what `gridcoll emulate down` removes\n";
    o << "name=" << s.name << "\nplatform=" << s.platform_file << "\nshaper=" << s.shaper << "\nslot=" << s.slot
      << "\nnative_delay=" << s.native_delay_s  << "\ncontainers=" << (s.containers ? 1 : 0)
      << "\nwindows=" << (s.windows ? 1 : 0) << "\ndilation=" << s.dilation << "\nstatus=" << s.status
      << "\nowner=" << s.owner << "\n";
    for (const auto& n : s.namespaces) o << "netns=" << n << "\n";
    for (const auto& u : s.uts_files) o << "uts=" << u << "\n";
    for (pid_t p : s.daemons) o << "daemon=" << p << "\n";
    if (!s.machines.empty()) o << "machines=" << s.machines << "\npart=" << s.part << "\ngridcoll=" << s.gridcoll << "\n";
    for (const auto& r : s.remote) o << "remote=" << r << "\n";
    const std::string tmp = s.dir + "/state.tmp";
    {
        std::ofstream f(tmp, std::ios::trunc);
        f << o.str();
        if (!f.flush()) throw Error(tmp + ": cannot write");
    }
    fs::rename(tmp, s.dir + "/state");
}

std::vector<TestbedState> list_testbeds(const std::string& root) {
    std::vector<TestbedState> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec)) {
        if (!e.is_directory() || !fs::exists(e.path() / "state")) continue;
        try {
            out.push_back(read_state(e.path()));
        } catch (const std::exception&) {
            TestbedState broken;  // unreadable: still listed, so that down --all removes it
            broken.dir = e.path();
            broken.name = e.path().filename();
            broken.status = "unreadable";
            broken.slot = -1;
            out.push_back(broken);
        }
    }
    return out;
}

int free_slot(const std::string& root) {
    std::set<int> used;
    for (const auto& t : list_testbeds(root)) used.insert(t.slot);
    for (const auto& n : netns_list()) {
        int slot;
        if (is_testbed_ns(n, &slot)) used.insert(slot);
    }
    for (int s = 0; s < max_slots; ++s)
        if (!used.count(s)) return s;
    throw Error("all " + std::to_string(max_slots) + " testbed slots are in use (gridcoll emulate status; down NAME)");
}

std::string health(const TestbedState& s) {
    const auto present = netns_list();
    const std::set<std::string> have(present.begin(), present.end());
    int missing = 0;
    for (const auto& n : s.namespaces) missing += !have.count(n);
    int dead = 0;
    for (pid_t p : s.daemons) dead += !alive(p);
    std::string msg;
    if (missing) msg += std::to_string(missing) + " of " + std::to_string(s.namespaces.size()) + " namespaces missing";
    if (dead) msg += (msg.empty() ? "" : "; ") + std::to_string(dead) + " of " + std::to_string(s.daemons.size()) + " delay lines dead";
    return msg;
}

void bring_up(const TestbedPlan& plan, const UpScript& script, TestbedState& state, const Log& log) {
    // What this machine makes: every machine's on one machine or stand-ins, else its own part.
    const auto here = [&](int machine) { return plan.machines[static_cast<std::size_t>(machine)].local; };
    state.namespaces.clear();
    for (const auto& n : plan.ns)
        if (here(n.machine)) state.namespaces.push_back(n.name);
    state.uts_files.clear();
    for (const auto& h : plan.hosts)
        if (here(plan.machine_of_host(h))) state.uts_files.push_back(plan.uts_file(h));
    try {
        fs::create_directories(plan.state_dir + "/uts");
        fs::create_directories(plan.state_dir + "/run");
        fs::create_directories(plan.state_dir + "/log");
        write_state(state);
        std::size_t done = 0;
        const std::size_t total = script.setup.size() + script.daemons.size() + script.hosts.size() + script.routes.size();
        auto progress = [&] {
            ++done;
            if (done % 200 == 0) log("  " + std::to_string(done) + "/" + std::to_string(total) + " steps");
        };
        for (const auto& c : script.setup) run_checked(c), progress();
        std::vector<Daemon> daemons = script.daemons;
        daemons.insert(daemons.end(), script.hosts.begin(), script.hosts.end());
        for (const auto& d : daemons) {
            throw_if_interrupted();
            const pid_t pid = spawn_daemon(d.argv, d.log_file);
            state.daemons.push_back(pid);
            write_state(state);
            if (!wait_ready(d.ready_file, pid, 10)) {
                std::ifstream lf(d.log_file);
                std::string tail((std::istreambuf_iterator<char>(lf)), std::istreambuf_iterator<char>());
                throw Error(d.label + " did not start" + (tail.empty() ? "" : ":\n" + tail));
            }
            progress();
        }
        for (const auto& c : script.routes) run_checked(c), progress();
    } catch (...) {
        log("bring-up failed: removing what was created");
        tear_down(state, log);
        throw;
    }
}

// Containerised hosts: SIGKILL each host's init (its PID namespace goes with it), so that its
// unshare, which ignores SIGTERM while it waits, exits at once.
void kill_host_inits(const TestbedState& s) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(s.dir + "/hosts", ec)) {
        std::ifstream f(e.path() / "pid");
        long pid = 0;
        if (f >> pid && pid > 1) kill(static_cast<pid_t>(pid), SIGKILL);
    }
}

void tear_down(const TestbedState& s, const Log& log) {
    if (s.containers && !s.dir.empty()) kill_host_inits(s);
    for (pid_t p : s.daemons) terminate(p);
    for (const auto& n : s.namespaces) {
        for (pid_t p : pids_in_netns(n)) terminate(p, 2);
        if (fs::exists("/run/netns/" + n)) {
            const ProcResult r = run_capture({"ip", "netns", "del", n});
            if (r.status != 0) log("cannot delete namespace " + n + ": " + r.out);
        }
    }
    for (const auto& u : s.uts_files) {
        bool mounted = false;
        for (const auto& m : mounts_under(fs::path(u).parent_path())) mounted |= m == u;
        if (mounted) {
            const ProcResult r = run_capture({"umount", u});
            if (r.status != 0) log("cannot unmount " + u + ": " + r.out);
        }
    }
    if (s.containers) {  // the hosts' cgroups, empty now that their processes are gone
        std::vector<std::string> hosts;
        for (const auto& u : s.uts_files) hosts.push_back(fs::path(u).filename());
        for (const std::string& cg : host_cgroups(s.name, hosts))
            if (fs::exists(cg) && rmdir(cg.c_str()) != 0) log("cannot remove cgroup " + cg + ": " + std::strerror(errno));
    }
    down_remote_parts(s, log);
    std::error_code ec;
    if (!s.dir.empty()) fs::remove_all(s.dir, ec);
    if (ec) log("cannot remove " + s.dir + ": " + ec.message());
}

int remove_leftovers(const std::string& root, bool all, const Log& log) {
    int removed = 0;
    std::set<int> live_slots;
    for (const auto& t : list_testbeds(root)) {
        std::string why;
        if (all) why = "down --all";
        else if (t.status == "unreadable") why = "its state file is unreadable";
        else if (t.status != "up" && !alive(t.owner)) why = "left by a run that was killed (process " + std::to_string(t.owner) + ")";
        else if (t.status == "up" && !health(t).empty()) why = "broken: " + health(t);
        if (why.empty()) {
            live_slots.insert(t.slot);
            continue;
        }
        log("removing testbed '" + t.name + "' (" + why + ")");
        tear_down(t, log);
        ++removed;
    }
    for (const auto& n : netns_list()) {
        int slot;
        if (!is_testbed_ns(n, &slot) || live_slots.count(slot)) continue;
        log("removing stray namespace " + n);
        for (pid_t p : pids_in_netns(n)) terminate(p, 2);
        run_capture({"ip", "netns", "del", n});
        ++removed;
    }
    for (int slot = 0; slot < max_slots; ++slot) {
        if (live_slots.count(slot)) continue;
        for (pid_t p : delaylines_of_slot(slot)) {
            log("stopping stray delay line " + std::to_string(p));
            terminate(p);
            ++removed;
        }
    }
    std::set<std::string> live_dirs;
    for (const auto& t : list_testbeds(root)) live_dirs.insert(t.dir + "/");
    for (const auto& m : mounts_under(root)) {
        bool owned = false;
        for (const auto& d : live_dirs) owned |= m.rfind(d, 0) == 0;
        if (owned) continue;
        log("unmounting stray " + m);
        run_capture({"umount", m});
        ++removed;
    }
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && !fs::exists(e.path() / "state") && mounts_under(e.path()).empty()) fs::remove_all(e.path(), ec);
    return removed;
}

}  // namespace gridcoll::emulate
