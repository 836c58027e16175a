// A testbed's parts on machines reached by SSH (testbed_remote.hpp).
#include "gridcoll/emulator/testbed_remote.hpp"

#include <cstdio>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"
#include "gridcoll/system/process.hpp"

namespace gridcoll::emulate {

namespace {

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::vector<std::string> over_ssh(const std::string& machine, const std::vector<std::string>& argv) {
    return {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", machine, "--", Command{argv}.text()};
}

}  // namespace

std::vector<std::string> remote_up_command(const TestbedPlan& plan, int k, const PartOptions& o) {
    std::vector<std::string> argv{o.gridcoll, "emulate", "up", o.platform_file, "--part", std::to_string(k), "--slot",
                                  std::to_string(plan.slot), "--machines", machines_spec(plan.machines), "--name",
                                  plan.name, "--shaper", o.shaper, "--native-delay", number(o.native_delay_s) + "s",
                                  "--dilation", number(o.dilation), "--no-check"};
    if (!o.containers) argv.push_back("--no-containers");
    argv.insert(argv.end(), {"--cpu-cap", o.cpu_cap ? "on" : "off"});
    if (o.realtime) argv.push_back("--realtime");
    if (!o.windows) argv.push_back("--no-windows");
    return over_ssh(plan.machines[static_cast<std::size_t>(k)].name, argv);
}

std::vector<std::string> remote_down_command(const std::string& machine, const std::string& gridcoll,
                                             const std::string& name) {
    return over_ssh(machine, {gridcoll, "emulate", "down", name});
}

void bring_up_remote_parts(const TestbedPlan& plan, const PartOptions& o, TestbedState& state, const Log& log) {
    for (std::size_t k = 0; k < plan.machines.size(); ++k) {
        const Machine& m = plan.machines[k];
        if (m.local) continue;
        throw_if_interrupted();
        log("bringing up machine " + std::to_string(k) + " (" + m.name + ") over ssh");
        state.remote.push_back(m.name);
        write_state(state);
        const sys::ProcResult r = sys::run_capture(remote_up_command(plan, static_cast<int>(k), o));
        if (r.status != 0)
            throw Error("machine " + std::to_string(k) + " (" + m.name + ") could not bring up its part (exit " +
                        std::to_string(r.status) + "):\n" + r.out);
    }
}

void copy_to_remote_machines(const TestbedPlan& plan, const std::string& path, const std::string& content) {
    const std::string dir = path.substr(0, path.rfind('/'));
    const std::string script = "mkdir -p " + Command{{dir}}.text() + " && printf '%s' " + Command{{content}}.text() + " > " +
                               Command{{path + ".tmp"}}.text() + " && mv " + Command{{path + ".tmp"}}.text() + " " +
                               Command{{path}}.text();
    for (const Machine& m : plan.machines) {
        if (m.local) continue;
        const sys::ProcResult r = sys::run_capture(over_ssh(m.name, {"sh", "-c", script}));
        if (r.status != 0) throw Error("cannot write " + path + " on " + m.name + " (exit " + std::to_string(r.status) + "): " + r.out);
    }
}

void down_remote_parts(const TestbedState& state, const Log& log) {
    for (const std::string& m : state.remote) {
        const sys::ProcResult r = sys::run_capture(remote_down_command(m, state.gridcoll, state.name));
        if (r.status != 0) log("cannot remove the part on " + m + " (exit " + std::to_string(r.status) + "): " + r.out);
    }
}

}  // namespace gridcoll::emulate
