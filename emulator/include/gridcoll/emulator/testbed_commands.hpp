// A TestbedPlan as the exact commands that build and remove it: ip / tc / sysctl / unshare argument
// vectors (nothing is run here, so the lists are unit-tested for every shipped platform) and the
// delay-line daemons to start between the set-up and the routes.
#pragma once

#include <string>
#include <vector>

#include "gridcoll/emulator/testbed_plan.hpp"

namespace gridcoll::emulate {

struct Command {
    std::vector<std::string> argv;
    int machine = 0;            // which of the plan's machines it runs on (testbed_machines.hpp)
    std::string text() const;  // shell-quoted, for --dry-run and error messages
};

struct Daemon {
    std::string label;               // "delayline l3 (gc0-r-c0 <-> gc0-r-c1)"
    std::vector<std::string> argv;   // argv[0] is the program
    std::string ready_file;          // appears once it forwards
    std::string log_file;
    int machine = 0;
};

struct UpScript {
    std::vector<Command> setup;     // namespaces, hostnames, sysctls, bridges, links, qdiscs, addresses
    std::vector<Daemon> daemons;    // delay lines (after setup: their TAPs exist)
    std::vector<Daemon> hosts;      // containerised hosts: each host's init (after setup; plan.containers)
    std::vector<Command> routes;    // after the daemons: every link carries traffic
};

struct CommandOptions {
    std::string delayline = "gridcoll-delayline";  // path of the delay-line program
    int delayline_nice = -10;       // priority of the delay lines over MPI's busy polling (0: none)
    int delayline_realtime = 0;     // > 0: SCHED_FIFO priority instead
    // Delay lines of links without loss or jitter forward whole GSO super-frames (--offload):
    // delay and rate stay exact (the token bucket counts every segment), and 1 Gbit/s at MTU 1500
    // costs a fraction of a core. Links with loss or jitter keep per-frame forwarding.
    bool delayline_offload = true;
};

UpScript up_commands(const TestbedPlan& plan, const CommandOptions& opt = {});

// Containerised hosts (plan.containers): per host an init process in the host's network and UTS
// namespaces and in PID and mount namespaces of its own, with a private /dev/shm, a private
// layer over /tmp (the machine's files show through; what the host writes stays its own), its own
// /proc, and a cgroup with a CPU weight in proportion to the host's cores (v2 cpu.weight or v1
// cpu.shares, where the machine lets us). It writes <host dir>/pid (its PID, for nsenter
// --target) and <host dir>/cgroup. Killing it ends every process of the host.
std::vector<Daemon> host_containers(const TestbedPlan& plan);
// The cgroups host_containers makes for testbed `name` (removed once its processes are gone).
std::vector<std::string> host_cgroups(const std::string& name, const std::vector<std::string>& hosts);

// Removes what up_commands creates: every namespace (their links, bridges and qdiscs go with them)
// and the hostname namespaces. Processes are stopped by the runner before these run.
std::vector<Command> down_commands(const TestbedPlan& plan);

// How long a frame may wait in a rate limiter's queue (tbf's latency, netem's room, the delay
// line's limit): 100 ms of undilated time, so K x 100 ms under time dilation K and the queue
// holds as many bytes as the undilated one (at a fixed 100 ms, x64 left a LAN port 78 KB, and
// TCP bursts into it were dropped).
inline double rate_queue_s(double dilation) { return 0.1 * dilation; }

// The tc argument tail for one direction: netem "delay 5ms loss 1% rate 20Mbit limit N" or
// tbf "rate 20Mbit burst B latency 100ms"; empty when the direction needs nothing. Under time
// dilation K the queue's 100 ms (tbf's latency, netem's room) is K x 100 ms.
std::vector<std::string> qdisc_args(const Direction& d, Shaper s, double native_delay_s, double dilation = 1);

}  // namespace gridcoll::emulate
