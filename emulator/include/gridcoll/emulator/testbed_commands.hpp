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
    std::string text() const;  // shell-quoted, for --dry-run and error messages
};

struct Daemon {
    std::string label;               // "delayline l3 (gc0-r-c0 <-> gc0-r-c1)"
    std::vector<std::string> argv;   // argv[0] is the program
    std::string ready_file;          // appears once it forwards
    std::string log_file;
};

struct UpScript {
    std::vector<Command> setup;     // namespaces, hostnames, sysctls, bridges, links, qdiscs, addresses
    std::vector<Daemon> daemons;    // delay lines (after setup: their TAPs exist)
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

// Removes what up_commands creates: every namespace (their links, bridges and qdiscs go with them)
// and the hostname namespaces. Processes are stopped by the runner before these run.
std::vector<Command> down_commands(const TestbedPlan& plan);

// The tc argument tail for one direction: netem "delay 5ms loss 1% rate 20Mbit limit N" or
// tbf "rate 20Mbit burst B latency 100ms"; empty when the direction needs nothing.
std::vector<std::string> qdisc_args(const Direction& d, Shaper s, double native_delay_s);

}  // namespace gridcoll::emulate
