// A testbed as one object: bring one up from a platform description (plan, commands, runner),
// find a running one by name, check its fidelity, run MPI programs across it, take it down. The
// `gridcoll emulate` subcommands and the emulated backend are built on this; the pieces it
// sequences are testbed_plan / testbed_commands / testbed_runner / testbed_check /
// testbed_mpi.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/emulator/testbed_check.hpp"
#include "gridcoll/emulator/testbed_mpi.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"
#include "gridcoll/emulator/testbed_runner.hpp"

namespace gridcoll::emulate {

struct TestbedOptions {
    std::string name;               // default: the platform's name
    std::string shaper = "auto";    // auto | netem | delayline
    double native_delay_s = 50e-6;  // delays up to this are left to the kernel
    std::string delayline;          // path of gridcoll-delayline (default: next to gridcoll)
    bool realtime = false;          // delay lines under SCHED_FIFO instead of nice -10
    bool containers = true;         // containerised hosts (PID and mount namespaces, cgroups)
    bool windows = true;            // receive windows per destination network (route_windows)
    std::string dilation = "1";     // time dilation: "1", a factor K, or "auto" (testbed_dilation.hpp)
    std::string cpu_cap = "auto";   // dilated hosts' CPU quota: auto | on | off (cpu_capped)
    std::string machines;           // "" (this machine), "N" stand-ins, or "A,B,..." by SSH (testbed_machines.hpp)
    int part = -1;                  // >= 0: bring up only this machine's part, for a controller (testbed_remote.hpp)
    int slot = -1;                  // with part: the controller's slot
};

class Testbed {
public:
    // Builds the testbed of a description: needs root (require_privileges), installs the
    // interrupt handlers, removes leftovers of killed runs first. A persistent testbed stays up
    // until down(); an ephemeral one goes with this object. On failure or interruption nothing
    // is left behind and Error is thrown.
    static std::unique_ptr<Testbed> up(const std::string& platform_file, const TestbedOptions& opt, bool persistent,
                                       const Log& log);
    // A testbed that is up, by name; Error if there is none or it is broken.
    static std::unique_ptr<Testbed> open(const std::string& name);
    // What `up` would build, without building it (`emulate plan`).
    static TestbedPlan plan_only(const std::string& platform_file, const TestbedOptions& opt);

    ~Testbed();
    Testbed(const Testbed&) = delete;
    Testbed& operator=(const Testbed&) = delete;

    const TestbedPlan& plan() const { return plan_; }
    const platform::Platform& platform() const { return platform_; }
    const std::string& name() const { return plan_.name; }

    std::vector<CheckRow> check(const CheckOptions& opt, const Log& log) const;
    // mpirun `command` across the testbed in the foreground (Ctrl-C passed on); its status.
    int run(const MpiOptions& opt, const std::vector<std::string>& command) const;
    // The same, reading the command's standard output line by line.
    int run_lines(const MpiOptions& opt, const std::vector<std::string>& command,
                  const std::function<void(const std::string&)>& on_line) const;
    // The rank map of `ranks` ranks as the description places them, written in the state
    // directory; returns its path (the caller removes it).
    std::string write_rank_map(int ranks) const;
    // Removes the testbed now (idempotent).
    void down(const Log& log);

private:
    int mpirun(const MpiOptions& opt, const std::vector<std::string>& command,
               const std::function<int(const std::vector<std::string>&)>& runner) const;
    Testbed(platform::Platform p, TestbedPlan plan, TestbedState st, bool owned)
        : platform_(std::move(p)), plan_(std::move(plan)), state_(std::move(st)), owned_(owned) {}
    platform::Platform platform_;
    TestbedPlan plan_;
    TestbedState state_;
    bool owned_;  // ephemeral: removed by the destructor
    bool gone_ = false;
};

// Hosts, routers, links, addresses and shaping of a plan, for a person (several lines).
std::string summary(const TestbedPlan& plan);

// The delay-line program: `given`, else gridcoll-delayline next to the running program, else PATH.
std::string find_delayline(const std::string& given);

}  // namespace gridcoll::emulate
