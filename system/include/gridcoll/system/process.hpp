// Child processes, for the command line, the SMPI runner and the testbed: run a command to
// completion capturing its output or line by line, in the foreground with Ctrl-C passed on, or
// start one in the background (a daemon outliving gridcoll, or a server to stop later).
// Programs are searched in PATH; a program that cannot start exits with status 127. A child
// other than a daemon gets SIGTERM when the thread that started it ends, so that one survives
// no run, even one killed with SIGKILL: wait for a child on the thread that started it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gridcoll::sys {

struct ProcResult {
    int status = 0;       // exit status, 128 + signal if killed, 127 if it could not start
    std::string out;      // stdout + stderr
};

// Runs argv[0] (searched in PATH), waits, and returns its status and output.
ProcResult run_capture(const std::vector<std::string>& argv);

// Runs argv with stdin/stdout/stderr inherited; SIGINT/SIGTERM received meanwhile go to the
// child (its own process group), and once the child has ended, what is left of its group gets
// SIGTERM (a shell's background job ignores SIGINT). A signal the process ignores stays ignored.
// Returns the exit status as run_capture does.
int run_foreground(const std::vector<std::string>& argv);

// As run_foreground, but the child's stdout comes to `on_line`, one call per line (a last line
// without '\n' too); its stderr passes through.
int run_lines(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line);

// A watch on a child that waits on the network: every `poll_s` the caller's `progress` counter
// is read (for the testbed: bytes its hosts have received); when neither it nor the child's
// output has changed for `stall_s` (> 0), the child's process group is stopped (SIGTERM, then
// SIGKILL) and the run returns kStalled. stall_s <= 0: no watch.
struct Watch {
    double stall_s = 0;
    double poll_s = 1;
    std::function<std::uint64_t()> progress;  // may be empty: output alone counts
};
constexpr int kStalled = 124;  // as timeout(1)
int run_lines(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line,
              const Watch& watch);

// Starts argv detached (new session, stdin /dev/null, stdout and stderr to `log_file`).
pid_t spawn_daemon(const std::vector<std::string>& argv, const std::string& log_file);

// Starts argv in its own process group with stdout (and stderr, unless `stderr_too` is false)
// on a pipe; read it with read_line.
struct Piped {
    pid_t pid = -1;
    int fd = -1;
};
Piped spawn_piped(const std::vector<std::string>& argv, bool stderr_too = true);
// Next line, or false on end of output or after `timeout_s` (< 0: no limit) without one.
bool read_line(Piped& p, std::string& line, double timeout_s);
// SIGTERM (then SIGKILL after `grace_s`) and reap.
void stop(Piped& p, double grace_s = 2);
int wait_exit(Piped& p);

// True if `pid` is alive (and not a zombie).
bool alive(pid_t pid);
// SIGTERM, wait up to grace_s for it to go, then SIGKILL. Works for non-children.
void terminate(pid_t pid, double grace_s = 3);

}  // namespace gridcoll::sys
