// Carrying out a TestbedPlan on this machine, and finding it again: the state directory
// (<state root>/<name>/state, default root /run/gridcoll) records what a testbed created so that
// `down` — or the next `up` after a killed run — removes exactly that. Everything a testbed
// creates lives in namespaces named gc<slot>-..., so leftovers are recognisable even without a
// state file.
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"

namespace gridcoll::emulate {

struct TestbedState {
    std::string dir;             // state directory
    std::string name, platform_file, shaper = "auto";
    int slot = 0;
    double native_delay_s = 50e-6;
    bool containers = false;     // containerised hosts (their cgroups are removed at teardown)
    bool windows = true;         // the hosts' routes advertise receive windows (route_windows)
    double dilation = 1;         // time dilation K, resolved
    std::string status;          // "starting", "up" (persistent), "ephemeral" (dies with its owner)
    pid_t owner = 0;             // the gridcoll process that created it
    std::vector<std::string> namespaces, uts_files;
    std::vector<pid_t> daemons;
    // Over several machines (testbed_machines.hpp): the `--machines` value, this machine's part
    // (-1: the controller, or a testbed of one machine), and for the controller the machines
    // reached by SSH, whose parts its teardown removes with `<gridcoll> emulate down NAME` there.
    std::string machines;
    int part = -1;
    std::vector<std::string> remote;
    std::string gridcoll;
};

std::string default_state_root();  // $GRIDCOLL_STATE_ROOT or /run/gridcoll

// Fails with a message saying what is missing (root, /dev/net/tun, ip, tc, nsenter, unshare).
void require_privileges();

// Whether `tc ... netem` works here (tried in a scratch namespace).
bool probe_netem();



std::vector<TestbedState> list_testbeds(const std::string& root);
TestbedState read_state(const std::string& dir);  // throws naming the file and line
void write_state(const TestbedState& s);           // atomic

// The lowest slot no live testbed uses.
int free_slot(const std::string& root);

// SIGINT / SIGTERM set a flag instead of killing gridcoll (and call the handler the process had
// before, if any); long operations poll it and unwind.
void install_interrupt_handlers();
bool interrupted();
void throw_if_interrupted();

using Log = std::function<void(const std::string&)>;

// Raises the kernel's neighbour (ARP) table limits, which all namespaces share, so that
// `entries` more fit (neighbour_entries); never lowers them. Logs what it changed, or why the
// testbed may see failed connects when it cannot.
void make_room_for_neighbours(long entries, const Log& log);

// Lets network namespaces choose congestion control `name` (adds it to the machine's
// net.ipv4.tcp_allowed_congestion_control, which only the initial namespace may set otherwise);
// false, logged, when the kernel has no such algorithm.
bool allow_congestion_control(const std::string& name, const Log& log);

// Runs the up script, recording everything in `state` as it goes. On any failure or
// interruption, removes what it created and throws.
void bring_up(const TestbedPlan& plan, const UpScript& script, TestbedState& state, const Log& log);

// Stops the daemons and every process in the testbed's namespaces, deletes the namespaces,
// unmounts the hostname namespaces and removes the state directory. Never throws; each
// problem is logged.
void tear_down(const TestbedState& state, const Log& log);

// Removes stale testbeds (owner dead and not "up", or a delay line dead) and anything named
// gc<slot>-... that no remaining testbed claims; with `all`, every testbed. Returns how many
// things it removed.
int remove_leftovers(const std::string& root, bool all, const Log& log);

// Processes whose network namespace is `ns` (by inode, like `ip netns pids`).
std::vector<pid_t> pids_in_netns(const std::string& ns);

// Whether a recorded testbed is healthy: namespaces present, daemons alive. Empty if so.
std::string health(const TestbedState& s);

}  // namespace gridcoll::emulate
