// The fidelity check: for every class of path in a testbed (one host pair per distinct
// level / delay / rate / loss), measure the round-trip time with small pings, the throughput
// with one bulk iperf3 transfer (TCP; UDP where the path loses packets) and, where loss is
// configured, the loss rate; compare each with what the description configures.
#pragma once

#include <string>
#include <vector>

#include "gridcoll/emulator/testbed_plan.hpp"
#include "gridcoll/emulator/testbed_runner.hpp"

namespace gridcoll::emulate {

struct CheckOptions {
    int pings = 50;              // RTT samples per path
    double ping_interval_s = 0.02;
    double transfer_s = 4;       // iperf3 duration (the first second is omitted)
    int loss_packets = 2000;     // pings sent to measure loss (where loss is configured)
    double delay_tolerance = 0.02, delay_tolerance_abs_s = 0.2e-3;
    // Added to the round-trip tolerance per delay line crossed: a userspace forwarder's wake-up
    // and copy (~60 us per crossing measured here when idle, more when the machine is loaded).
    double delay_line_allowance_s = 0.1e-3;
    double rate_tolerance = 0.05;
    double loss_tolerance = 0.20;
};

struct CheckRow {
    std::string klass, from, to;
    std::string quantity;        // "rtt", "throughput", "loss"
    double configured = 0, measured = 0, tolerance = 0;  // same unit (s, B/s, fraction)
    bool pass = false;
    std::string detail;
};

// The host pairs to measure: one per distinct path class.
struct PathClass {
    std::string klass, from, to;
    PathSpec there, back;
};
std::vector<PathClass> path_classes(const TestbedPlan& plan);

std::vector<CheckRow> check_testbed(const TestbedPlan& plan, const CheckOptions& opt, const Log& log);
std::string format_check_table(const std::vector<CheckRow>& rows);

// `command` as the controller runs it inside a testbed host (its network and UTS namespaces; on
// another machine, through ssh).
std::vector<std::string> in_host(const TestbedPlan& plan, const std::string& host, const std::vector<std::string>& command);

}  // namespace gridcoll::emulate
