#include "process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "gridcoll/error.hpp"

extern char** environ;

namespace gridcoll::cli {

namespace {
volatile sig_atomic_t g_child = 0;
void forward(int sig) {
    if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
}
}  // namespace

int run_process(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line) {
    int fds[2];
    if (pipe(fds) != 0) throw Error(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        throw Error("cannot start '" + argv[0] + "': " + std::strerror(rc));
    }
    g_child = pid;
    struct sigaction sa {}, old_int{}, old_term{};
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    FILE* f = fdopen(fds[0], "r");
    std::string line;
    char buf[4096];
    while (f && std::fgets(buf, sizeof buf, f)) {
        line += buf;
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
            on_line(line);
            line.clear();
        }
    }
    if (!line.empty()) on_line(line);
    if (f) std::fclose(f);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child = 0;
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

std::string self_dir() {
    std::error_code ec;
    const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : p.parent_path().string();
}

}  // namespace gridcoll::cli
