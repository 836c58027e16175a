// Testbeds over machines reached by SSH (testbed_machines.hpp): the controller brings up each
// other machine's part by running `<gridcoll> emulate up PLATFORM --part K ...` there — the same
// plan, computed there from the same description and options, of which that machine carries out
// its own commands, starts its own delay lines and hosts and keeps its own state — and removes
// it with `<gridcoll> emulate down NAME` there. gridcoll and the description must be at the same
// paths on every machine (as mpirun needs its programs to be).
#pragma once

#include <string>
#include <vector>

#include "gridcoll/emulator/testbed_plan.hpp"
#include "gridcoll/emulator/testbed_runner.hpp"

namespace gridcoll::emulate {

// What a machine's part is brought up with: the controller's resolved choices, so that every
// machine computes the same plan.
struct PartOptions {
    std::string gridcoll;       // the gridcoll program (the same path on every machine)
    std::string platform_file;  // absolute
    std::string shaper;         // netem or delayline, as the controller decided
    double native_delay_s = 50e-6;
    double dilation = 1;
    bool containers = true;
    bool cpu_cap = false;       // the controller's resolved cpu_cap
    bool realtime = false;
    bool windows = true;        // the plan's window routes
};

// The ssh command that brings up machine k's part of `plan`.
std::vector<std::string> remote_up_command(const TestbedPlan& plan, int k, const PartOptions& o);
// The ssh command that removes testbed `name`'s part on `machine`.
std::vector<std::string> remote_down_command(const std::string& machine, const std::string& gridcoll,
                                             const std::string& name);

// Brings up every remote machine's part in turn, recording each in state.remote as it starts;
// throws naming the machine and its output when one fails (the caller tears everything down).
void bring_up_remote_parts(const TestbedPlan& plan, const PartOptions& o, TestbedState& state, const Log& log);
// Writes `content` to `path` on every machine reached by SSH (a file the ranks read, such as a
// rank map in the state directory, which the parts' teardown removes with the rest).
void copy_to_remote_machines(const TestbedPlan& plan, const std::string& path, const std::string& content);
// Removes the parts state.remote names (a teardown of the controller's state). Never throws.
void down_remote_parts(const TestbedState& state, const Log& log);

}  // namespace gridcoll::emulate
