#include "gridcoll/sim/smpi_backend.hpp"

#include <chrono>
#include <cstdio>

#include "gridcoll/algorithms/model/params_io.hpp"
#include "gridcoll/runtime/bench_options.hpp"
#include "gridcoll/runtime/launched_bench.hpp"
#include "gridcoll/system/process.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll::sim {

SmpiLaunch::SmpiLaunch(const platform::SimPlatform& p, SmpiSettings settings)
    : settings_(std::move(settings)), ranks_(p.ranks), scratch_(std::make_unique<sys::ScratchDir>("gridcoll-smpi-")) {
    const std::string dir = scratch_->path();
    if (p.description) {
        xml_ = dir + "/platform.xml";
        hostfile_ = dir + "/hosts";
        sys::write_output(xml_, platform::simgrid_xml(*p.description));
        sys::write_output(hostfile_, platform::hostfile(*p.description, p.ranks));
    } else {
        xml_ = p.path;
        hostfile_ = p.hostfile;
    }
    if (p.topology) {
        rank_map_ = dir + "/ranks";
        sys::write_output(rank_map_, p.topology->to_text());
    }
}

std::vector<std::string> SmpiLaunch::command(const std::string& program, const std::vector<std::string>& cfg) const {
    const SmpiSettings& s = settings_;
    std::vector<std::string> argv = {"smpirun", "-platform", xml_, "-hostfile", hostfile_, "-np", std::to_string(ranks_)};
    if (s.no_privatize) argv.push_back("-no-privatize");
    argv.push_back("--cfg=smpi/simulate-computation:no");
    // ideal: time = latency + bytes / bandwidth with max-min sharing (SimGrid's CM02), what a
    // platform description's numbers mean. smpi: SimGrid's default SMPI model, whose latency and
    // bandwidth factors were calibrated on one real cluster (e.g. latency x11.6 above 64 KiB).
    if (s.network_model == "ideal") argv.push_back("--cfg=network/model:CM02");
    argv.push_back("--cfg=smpi/host-speed:1Gf");
    // SMPI's per-rank copies of the program (privatization) in our scratch directory, which goes
    // with this launch, or with the next one when this process was killed (a killed smpirun
    // left them in /tmp: 2 MB a rank). Through TMPDIR, which smpirun reads: it sets smpi/tmpdir
    // after any --cfg given to it, and SimGrid 3.32's `smpirun -tmpdir DIR` misreads DIR.
    argv.insert(argv.begin(), {"env", "TMPDIR=" + scratch_->path()});
    if (!s.verbose) argv.push_back("--log=root.thres:warning");
    for (const auto& c : s.cfg) argv.push_back("--cfg=" + c);
    for (const auto& c : cfg) argv.push_back("--cfg=" + c);
    argv.push_back(program);
    return argv;
}

void show_command(const std::vector<std::string>& argv) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    std::fprintf(stderr, "gridcoll: %s\n", cmd.c_str());
}

SmpiBackend::SmpiBackend(const platform::SimPlatform& p, SmpiSettings settings)
    : launch_(p, std::move(settings)), bench_(sys::sibling_program("gridcoll-bench-smpi", launch_.settings().bench)) {}

void SmpiBackend::check(const Batch& batch) const {
    if (batch.shape.ranks != launch_.ranks())
        throw Error("the batch is for " + std::to_string(batch.shape.ranks) + " ranks, the platform runs " +
                    std::to_string(launch_.ranks()));
    validate(batch);
    if (launch_.settings().shared_malloc && batch.verify) throw Error("shared malloc folds buffers: results cannot be verified");
}

namespace {

// SimGrid's selector of a collective's algorithm (smpi/<name>); none for exscan, gatherv and
// scatterv (SimGrid has one implementation each); the block form shares reduce_scatter's.
std::string smpi_selector(Collective c) {
    switch (c) {
        case Collective::Exscan:
        case Collective::Gatherv:
        case Collective::Scatterv: return "";
        case Collective::ReduceScatterBlock: return "reduce_scatter";
        default: return std::string(to_string(c));
    }
}

}  // namespace

std::vector<std::string> SmpiBackend::command(const Batch& batch) const {
    const SmpiSettings& s = launch_.settings();
    std::vector<std::string> cfg;  // SimGrid's own algorithm behind 'native'
    if (!s.smpi_algorithm.empty()) {
        const std::string selector = smpi_selector(batch.shape.coll);
        if (selector.empty())
            throw Error("SimGrid has no algorithm selector for " + std::string(to_string(batch.shape.coll)) +
                        " (its one implementation runs as 'native'); leave out --smpi-algorithm");
        cfg.push_back("smpi/" + selector + ":" + s.smpi_algorithm);
    }
    auto argv = launch_.command(bench_, cfg);
    const auto args = launch::bench_arguments(batch, batch.shape.topology ? launch_.rank_map() : "");
    argv.insert(argv.end(), args.begin(), args.end());
    if (s.shared_malloc) argv.push_back("--shared-malloc");
    return argv;
}

void SmpiBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const auto argv = command(batch);
    if (launch_.settings().verbose) show_command(argv);
    launch::run_launched_bench([&](const launch::LineSink& on_line) { return sys::run_lines(argv, on_line); }, name(), "smpirun",
                            sink);
}

model::ParamSet measure_plogp_smpi(const platform::SimPlatform& plat, const SmpiSettings& settings, const std::string& bytes,
                                   int reps) {
    const SmpiLaunch launch(plat, settings);
    auto argv = launch.command(sys::sibling_program("gridcoll-plogp-smpi"));
    if (!launch.rank_map().empty()) argv.insert(argv.end(), {"--rank-map", launch.rank_map()});
    if (!bytes.empty()) argv.insert(argv.end(), {"--bytes", bytes});
    const sys::ScratchDir out("gridcoll-params-");
    const std::string file = out.path() + "/params.toml";
    argv.insert(argv.end(), {"--reps", std::to_string(reps), "-o", file});
    if (settings.verbose) show_command(argv);
    // gridcoll-plogp writes the file itself (whole); its comments go to stderr.
    const int status = sys::run_lines(argv, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
    if (status != 0) throw Error("PLogP measurement failed (smpirun exit status " + std::to_string(status) + ")");
    return model::load_params(file);
}

SmpiDiscovery discover_smpi(const platform::SimPlatform& plat, const SmpiSettings& settings, const std::vector<std::string>& args,
                            bool check) {
    const SmpiLaunch launch(plat, settings);
    // A differing check makes the ranks return 1: SimGrid need not warn about it, rank by rank.
    auto argv = launch.command(sys::sibling_program("gridcoll-discover-smpi"));
    argv.insert(argv.end() - 1, "--log=smpi_kernel.thres:error");
    if (check && launch.rank_map().empty()) throw Error("no Topology known for '" + plat.path + "' to check against");
    // A flat result is an answer to compare, not an error, when the platform may be flat itself.
    if (check) argv.insert(argv.end(), {"--expect", launch.rank_map(), "--allow-flat"});
    const sys::ScratchDir out("gridcoll-discover-");
    const std::string file = out.path() + "/ranks";
    argv.insert(argv.end(), {"-o", file});
    argv.insert(argv.end(), args.begin(), args.end());
    if (settings.verbose) show_command(argv);
    SmpiDiscovery d;
    const auto t0 = std::chrono::steady_clock::now();
    d.status = sys::run_lines(argv, [&](const std::string& line) {
        if (line.rfind("# summary ", 0) == 0) d.summary = line.substr(10);
        else if (line.rfind("# wrote ", 0) != 0) d.report.push_back(line);
    });
    d.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (d.status > 1) throw Error("discovery failed (smpirun exit status " + std::to_string(d.status) + ")");
    d.rank_map = read_text_file(file);
    return d;
}

}  // namespace gridcoll::sim
