// WAN faults on a testbed that is up, and the watch that keeps a run across it from hanging.
//
// A fault takes one WAN link (named by its two ends, "c0:c1") or every WAN link of a site
// ("site:c0") down for a while: both ends' egress queues become tc's `blackhole` qdisc, so every
// frame is dropped silently — the interfaces stay up and the routes stay in place, as when a
// provider's link fails somewhere in between — and afterwards the link's own shaping is put
// back. TCP connections ride out a short outage by retransmitting; a long one is the watch's.
// Faults in force are recorded in <state dir>/faults, one line each, so that a run that stalls
// can say which links were down.
//
// The watch: a run across the testbed makes progress while its hosts receive data (the bytes
// their data interfaces have received, read from each host's network namespace) or it prints
// output; a run without either for the stall limit is stopped, its processes in the hosts'
// namespaces too, and reported with the faults in force.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"
#include "gridcoll/emulator/testbed_runner.hpp"

namespace gridcoll::emulate {

// Links a fault can take down: the WAN links (of zones above the hosts' own), by name.
struct FaultTarget {
    std::string name;                // "c0:c1" or "site:c0"
    std::vector<std::size_t> links;  // indices into plan.links
};
// Every single link a fault can name ("A:B"), then every site ("site:S").
std::vector<std::string> fault_target_names(const TestbedPlan& plan);
// The target `name` names; Error listing the choices when none.
FaultTarget fault_target(const TestbedPlan& plan, const std::string& name);

// The tc commands that take the target's links down, and that restore their shaping.
std::vector<Command> fault_down_commands(const TestbedPlan& plan, const FaultTarget& t);
std::vector<Command> fault_restore_commands(const TestbedPlan& plan, const FaultTarget& t);

// One fault of a schedule: `target` down from `at_s` (seconds after the start) for `for_s`.
struct ScheduledFault {
    double at_s = 0, for_s = 0;
    std::string target;
};
// A schedule file: one fault a line, "<at> <duration> <target>" (times as "2s", "500ms"),
// '#' comments; Error naming file:line and the value at fault.
std::vector<ScheduledFault> read_fault_schedule(const std::string& file);
// Carries a schedule out in time order (overlapping faults allowed), logging each change, and
// restores every link it took down before returning — also when `cancel` is set (then at once)
// or when interrupted (SIGINT/SIGTERM: Error "interrupted" after the restore). Checks every
// target before the first fault.
void run_fault_schedule(const TestbedPlan& plan, const std::vector<ScheduledFault>& faults, const Log& log,
                        const std::atomic<bool>* cancel = nullptr);
// A schedule carried out in a thread of its own from start() (later calls do nothing); stopped,
// every link it took down restored, by the destructor. Errors of the schedule are logged.
class BackgroundFaults {
public:
    BackgroundFaults(const TestbedPlan& plan, std::vector<ScheduledFault> faults) : plan_(plan), faults_(std::move(faults)) {}
    ~BackgroundFaults();
    BackgroundFaults(const BackgroundFaults&) = delete;
    BackgroundFaults& operator=(const BackgroundFaults&) = delete;
    void start();

private:
    const TestbedPlan& plan_;
    std::vector<ScheduledFault> faults_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// Checks a schedule against a plan (every target exists); Error naming the first that does not.
void check_fault_schedule(const TestbedPlan& plan, const std::vector<ScheduledFault>& faults);
// The faults' changes since `since` ("c0:c1 down at 10:02:03, c0:c1 up at 10:02:08"), or "".
std::string fault_history(const TestbedPlan& plan, std::time_t since);
// The faults in force now (the lines of <state dir>/faults: "<target> down since <time>"), or "".
std::string faults_in_force(const TestbedPlan& plan);

// Bytes received so far on the data interfaces of all the testbed's hosts.
std::uint64_t hosts_received_bytes(const TestbedPlan& plan);
// The stall limit of runs across the testbed by default: 30 s plus 1000 round trips of the
// slowest path between hosts (40 s where the slowest round trip is 10 ms).
double default_stall_s(const TestbedPlan& plan);
// Stops every process left in the hosts' namespaces (after a stalled mpirun).
void stop_host_processes(const TestbedPlan& plan);

}  // namespace gridcoll::emulate
