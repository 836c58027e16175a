// gridcoll simulate: runs gridcoll-bench-smpi under SimGrid's smpirun on a platform and prints
// its CSV (or a table). Simulated times are deterministic and independent of this machine's
// speed: computation is not benchmarked (smpi/simulate-computation:no).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gridcoll/text.hpp"
#include "commands.hpp"
#include "csv_table.hpp"
#include "simulate_event.hpp"
#include "smpi_run.hpp"
#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"
#include "process.hpp"

namespace gridcoll::cli {

namespace {

struct SimulateOptions {
    std::string platform, hostfile;
    std::string collective = "bcast";
    std::string algorithm = "binomial";
    int ranks = 0;
    std::string bytes = "8,1K,64K,1M";
    std::string segment = "0";
    int fanout = 2;
    int reps = 5;
    int warmup = 1;
    int root = -1;
    std::string type = "int32", op = "sum";
    bool no_verify = false, shared_malloc = false, no_privatize = false, verbose = false;
    std::string format = "csv";
    std::string network_model = "ideal";
    std::string backend = "smpi";  // or event
    std::string params, model = "plogp";
    std::string shared_links;  // event backend
    bool sync_sends = false;   // event backend
    std::string smpi_algorithm;  // SMPI's own algorithm for 'native'
    std::vector<std::string> cfg;
    std::string bench;
};

int run_event(const SimulateOptions& o) {
    EventRun r;
    r.platform = o.platform;
    r.hostfile = o.hostfile;
    r.params = o.params;
    r.model = o.model;
    r.collective = o.collective;
    r.bytes = o.bytes;
    r.segment = o.segment;
    r.ranks = o.ranks;
    r.fanout = o.fanout;
    r.reps = o.reps;
    r.root = o.root;
    r.shared_links = o.shared_links;
    r.sync_sends = o.sync_sends;
    const Collective coll = parse_collective(o.collective);
    if (o.algorithm == "all") {
        for (const Algorithm* a : algorithms_for(coll)) r.algorithms.push_back(a->name);
    } else {
        for (const auto& a : split_list(o.algorithm)) {
            if (a == "native") throw Error("the event backend simulates gridcoll's schedules; 'native' needs --backend smpi");
            find_algorithm(coll, a);
            r.algorithms.push_back(a);
        }
    }
    return run_event_backend(r);
}

int run(const SimulateOptions& given) {
    if (given.backend == "event") return run_event(given);
    if (!given.shared_links.empty()) throw Error("--shared-links is an option of the event backend (--backend event)");
    if (given.sync_sends) throw Error("--sync-sends is an option of the event backend (--backend event)");
    SimulateOptions o = given;
    const SmpiPlatform plat = prepare_smpi_platform(o.platform, o.hostfile, o.ranks);
    o.ranks = plat.ranks;
    // Validate names and sizes here, so mistakes get a clear message rather than one per rank.
    const Collective coll = parse_collective(o.collective);
    if (o.algorithm != "all")
        for (const auto& a : split_list(o.algorithm))
            if (a != "native") find_algorithm(coll, a);
    parse_byte_list(o.bytes);
    parse_bytes(o.segment);
    if (o.root >= o.ranks) throw Error("--root " + std::to_string(o.root) + " is not below --ranks " + std::to_string(o.ranks));

    const std::string bench = sibling_program("gridcoll-bench-smpi", o.bench);
    std::vector<std::string> argv = smpirun_command(plat, SmpiSettings{o.network_model, o.no_privatize, o.verbose, o.cfg});
    if (!o.smpi_algorithm.empty()) argv.push_back("--cfg=smpi/" + o.collective + ":" + o.smpi_algorithm);
    argv.insert(argv.end(), {bench, "--collective", o.collective, "--algorithm", o.algorithm, "--bytes", o.bytes, "--segment",
                             o.segment, "--fanout", std::to_string(o.fanout), "--reps", std::to_string(o.reps), "--warmup",
                             std::to_string(o.warmup), "--type", o.type, "--op", o.op});
    if (o.root >= 0) argv.insert(argv.end(), {"--root", std::to_string(o.root)});
    if (o.no_verify) argv.push_back("--no-verify");
    if (o.shared_malloc) argv.push_back("--shared-malloc");
    if (o.verbose) {
        std::string cmd;
        for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
        std::fprintf(stderr, "gridcoll: %s\n", cmd.c_str());
    }

    CsvTable table;
    const bool as_table = o.format == "table";
    const int status = run_process(argv, [&](const std::string& line) {
        if (line.rfind("backend,", 0) != 0 && line.rfind("smpi,", 0) != 0) {
            std::fprintf(stderr, "%s\n", line.c_str());  // anything else the program said
            return;
        }
        if (as_table) {
            table.add_line(line);
            const auto f = split_csv(line);
            if (f.size() > 9 && f[0] != "backend")  // progress: one line per finished row
                std::fprintf(stderr, "  %s %s bytes: %s\n", f[2].c_str(), f[4].c_str(),
                             format_seconds(std::stod(f[9])).c_str());
        } else {
            std::printf("%s\n", line.c_str());
            std::fflush(stdout);
        }
    });
    if (as_table) std::fputs(table.render().c_str(), stdout);
    if (status != 0) std::fprintf(stderr, "gridcoll: simulation failed (smpirun exit status %d)\n", status);
    return status;
}

}  // namespace

Runner add_simulate(CLI::App& app) {
    auto o = std::make_shared<SimulateOptions>();
    app.add_option("-p,--platform", o->platform, "platform description (.toml) or SimGrid XML platform (.xml)")->required();
    app.add_option("-H,--hostfile", o->hostfile, "for XML: hostfile, one host per line or host:N for N ranks");
    app.add_option("-c,--collective", o->collective, "collective")->capture_default_str();
    app.add_option("-a,--algorithm", o->algorithm, "algorithm(s), comma-separated; 'native'; 'all'")->capture_default_str();
    app.add_option("-n,--ranks", o->ranks, "number of MPI ranks (default for .toml: the description's placement)")
        ->check(CLI::PositiveNumber);
    app.add_option("-b,--bytes", o->bytes, "message sizes, e.g. 8,64K,4M")->capture_default_str();
    app.add_option("-s,--segment", o->segment, "segment size (0 = none)")->capture_default_str();
    app.add_option("-k,--fanout", o->fanout, "fan-out / chains")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("-r,--reps", o->reps, "timed repetitions (simulation is deterministic: few suffice)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--warmup", o->warmup, "untimed repetitions")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--root", o->root, "fixed root (default: every rank in turn)")->check(CLI::NonNegativeNumber);
    app.add_option("--type", o->type, "reduction element type")->capture_default_str();
    app.add_option("--op", o->op, "reduction operation")->capture_default_str();
    app.add_flag("--no-verify", o->no_verify, "do not check results");
    app.add_flag("--shared-malloc", o->shared_malloc, "fold buffers with SMPI_SHARED_MALLOC (large runs; no verification)");
    app.add_flag("--no-privatize", o->no_privatize, "share globals between simulated ranks (faster start for many ranks)");
    app.add_option("--smpi-algorithm", o->smpi_algorithm, "SMPI's algorithm used by 'native', e.g. binomial_tree");
    app.add_option("--cfg", o->cfg, "extra SimGrid configuration KEY:VALUE (repeatable)");
    app.add_option("--network-model", o->network_model, "ideal (latency + size/bandwidth) or smpi (SimGrid's calibrated SMPI model)")
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
    app.add_option("--bench", o->bench, "path of gridcoll-bench-smpi (default: next to gridcoll)");
    app.add_flag("-v,--verbose", o->verbose, "show the smpirun command and SimGrid's log");
    return [o] { return run(*o); };
}

}  // namespace gridcoll::cli
