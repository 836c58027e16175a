// gridcoll simulate: runs a batch of operations on a simulated platform and prints the result
// rows (CSV, or a table). Backends: smpi (gridcoll-bench-smpi under SimGrid's smpirun) or event
// (the schedule event simulator), opened through the one front door (gridcoll/backends); their
// settings are declared from its table. The platform's Topology goes to both. Everything is
// checked before a backend starts.
#include <memory>
#include <string>

#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/runtime/bench_options.hpp"

namespace gridcoll::cli {

namespace {

struct SimulateOptions {
    backends::Target target;
    BatchOptions batch;
    std::string format = "csv";
    std::string backend = "smpi";
    backends::SettingValues settings;
};

int run(SimulateOptions& o) {
    if (o.target.platform.empty()) throw Error("simulate: give a platform (-p FILE)");
    auto opened = backends::open_backend(o.backend, o.settings, o.target);
    return run_and_print(opened, o.batch, o.format);
}

}  // namespace

Runner add_simulate(CLI::App& app) {
    auto o = std::make_shared<SimulateOptions>();
    add_platform_option(app, o->target.platform, "platform description (.toml) or SimGrid XML platform (.xml)", false)->required();
    app.add_option("-H,--hostfile", o->target.hostfile, "for XML: hostfile, one host per line or host:N for N ranks");
    app.add_option("-n,--ranks", o->target.ranks,
                   "number of MPI ranks (default: the description's placement, or one per hostfile slot)")
        ->check(kPositive);
    launch::add_batch_options(app, o->batch, 5);
    app.add_option("-f,--format", o->format, "csv or table")->capture_default_str()->check(CLI::IsMember({"csv", "table"}));
    app.add_option("--backend", o->backend, "smpi (run the MPI code under SimGrid) or event (replay schedules under a model)")
        ->capture_default_str()
        ->check(CLI::IsMember({"smpi", "event"}));
    add_backend_settings(app, o->settings, {"smpi", "event"});
    return [o, &app] {
        launch::note_inapplicable(app, o->batch);
        return run(*o);
    };
}

}  // namespace gridcoll::cli
