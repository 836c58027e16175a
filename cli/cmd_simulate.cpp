// gridcoll simulate: runs a batch of operations on a simulated platform and prints the result
// rows (CSV, or a table). Backends: smpi (gridcoll-bench-smpi under SimGrid's smpirun,
// sim::SmpiBackend) or event (the schedule event simulator, sim::EventBackend). The platform's
// Topology goes to both. Everything is checked before a backend starts.
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "batch_options.hpp"
#include "csv_table.hpp"
#include "gridcoll/event_backend.hpp"
#include "gridcoll/smpi_backend.hpp"
#include "gridcoll/units.hpp"

namespace gridcoll::cli {

namespace {

struct SimulateOptions {
    std::string platform, hostfile;
    int ranks = 0;
    BatchOptions batch;
    std::string format = "csv";
    std::string backend = "smpi";  // or event
    sim::SmpiSettings smpi;
    std::string params, model = "plogp";  // event backend
    std::string shared_links;              // event backend
    bool sync_sends = false;               // event backend
    std::string sync_from;                 // event backend
    bool bench_timing = false;             // event backend
    bool rendezvous = false;               // event backend
    double cross_traffic = 0;              // event backend
};

std::unique_ptr<Backend> make_backend(const SimulateOptions& o, const sim::SimPlatform& plat) {
    if (o.backend == "smpi") {
        if (!o.shared_links.empty()) throw Error("--shared-links is an option of the event backend (--backend event)");
        if (o.sync_sends || !o.sync_from.empty() || o.bench_timing || o.rendezvous || o.cross_traffic != 0)
            throw Error("--sync-sends, --sync-from, --rendezvous, --cross-traffic and --bench-timing are options of the event backend (--backend event); "
                        "SMPI runs the bench's timing method itself");
        return std::make_unique<sim::SmpiBackend>(plat, o.smpi);
    }
    if (!o.smpi.smpi_algorithm.empty() || !o.smpi.cfg.empty() || o.smpi.shared_malloc)
        throw Error("--smpi-algorithm, --cfg and --shared-malloc are options of the SMPI backend (--backend smpi)");
    sim::EventSettings ev;
    ev.params = o.params;
    ev.model = o.model;
    ev.sync_sends = o.sync_sends;
    if (!o.sync_from.empty()) {
        if (!o.sync_sends) throw Error("--sync-from needs --sync-sends");
        ev.sync_from = parse_bytes(o.sync_from);
    }
    ev.shared_links = o.shared_links;
    ev.bench_timing = o.bench_timing;
    ev.rendezvous = o.rendezvous;
    ev.cross_traffic = o.cross_traffic;
    return sim::make_event_backend(plat, ev);
}

int run(const SimulateOptions& o) {
    const sim::SimPlatform plat = sim::load_sim_platform(o.platform, o.hostfile, o.ranks);
    Batch batch = o.batch.make(plat.ranks, plat.topology, o.backend == "smpi");
    batch.verify = batch.verify && !o.smpi.shared_malloc;
    auto backend = make_backend(o, plat);
    backend->check(batch);  // one clear message before anything starts
    RowPrinter print(o.format == "table");
    backend->run(batch, [&](const ResultRow& row) { print(row); });
    return print.finish();
}

}  // namespace

Runner add_simulate(CLI::App& app) {
    auto o = std::make_shared<SimulateOptions>();
    app.add_option("-p,--platform", o->platform, "platform description (.toml) or SimGrid XML platform (.xml)")->required();
    app.add_option("-H,--hostfile", o->hostfile, "for XML: hostfile, one host per line or host:N for N ranks");
    app.add_option("-n,--ranks", o->ranks, "number of MPI ranks (default: the description's placement, or one per hostfile slot)")
        ->check(CLI::PositiveNumber);
    add_batch_options(app, o->batch, 5);
    app.add_flag("--shared-malloc", o->smpi.shared_malloc, "fold buffers with SMPI_SHARED_MALLOC (large runs; no verification)");
    app.add_flag("--no-privatize", o->smpi.no_privatize, "share globals between simulated ranks (faster start for many ranks)");
    app.add_option("--smpi-algorithm", o->smpi.smpi_algorithm, "SMPI's algorithm used by 'native', e.g. binomial_tree");
    app.add_option("--cfg", o->smpi.cfg, "extra SimGrid configuration KEY:VALUE (repeatable)");
    app.add_option("--network-model", o->smpi.network_model,
                   "ideal (latency + size/bandwidth) or smpi (SimGrid's calibrated SMPI model)")
        ->capture_default_str()
        ->check(CLI::IsMember({"ideal", "smpi"}));
    app.add_option("-f,--format", o->format, "csv or table")->capture_default_str()->check(CLI::IsMember({"csv", "table"}));
    app.add_option("--backend", o->backend, "smpi (run the MPI code under SimGrid) or event (replay schedules under a model)")
        ->capture_default_str()
        ->check(CLI::IsMember({"smpi", "event"}));
    app.add_option("--params", o->params, "event backend: parameter file (default: derived from the description's links)");
    app.add_option("--model", o->model, "event backend: plogp or loggp")->capture_default_str()->check(CLI::IsMember({"plogp", "loggp"}));
    app.add_option("--shared-links", o->shared_links,
                   "event backend: levels (names or indices) whose messages share one link per cluster pair (contention; "
                   "off by default)");
    app.add_flag("--sync-sends", o->sync_sends,
                 "event backend: a send completes when its message arrives (rendezvous), not after os(m)");
    app.add_option("--sync-from", o->sync_from,
                   "event backend, with --sync-sends: only sends of at least this size (SMPI's detached threshold, 64K "
                   "by default; default here 0: every send)");
    app.add_flag("--rendezvous", o->rendezvous,
                 "event backend: a message's transfer starts only once its receive is posted (SimGrid's matching; "
                 "with --sync-sends its sender waits too)");
    app.add_option("--cross-traffic", o->cross_traffic,
                   "event backend, with --shared-links: a message also loads its link's other direction by this "
                   "fraction of a share (SimGrid's network/crosstraffic: 0.05; default 0)")
        ->check(CLI::Range(0.0, 1.0));
    app.add_flag("--bench-timing", o->bench_timing,
                 "event backend: time as gridcoll-bench does on an MPI (a zero-byte release from the root before, a "
                 "report to it after), not the collective alone");
    app.add_option("--bench", o->smpi.bench, "path of gridcoll-bench-smpi (default: next to gridcoll)");
    app.add_flag("-v,--verbose", o->smpi.verbose, "show the smpirun command and SimGrid's log");
    return [o] { return run(*o); };
}

}  // namespace gridcoll::cli
