// gridcoll discover PLATFORM...: finds each platform's Topology by timing round trips under SMPI
// (gridcoll-discover-smpi; paper 003's ECO, every level) and prints its report, or with --check
// one table row per platform and placement: does the discovered partition equal the platform's
// at every level, how many pairs were timed, how long it took. On the emulated testbed the same
// program runs with `gridcoll emulate run TESTBED -- gridcoll-discover ...`.
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/backends/smpi_settings.hpp"
#include "gridcoll/sim/smpi_backend.hpp"
#include "gridcoll/system/files.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll::cli {

namespace {

struct Opts {
    std::vector<std::string> platforms, placements;
    std::string hostfile, output;
    int ranks = 0;
    bool check = false;
    backends::SettingValues smpi;  // the SMPI backend's network_model, cfg, verbose
    std::string threshold, reps, probe_bytes, split_bytes;
    bool exact_search = false;
};

// key=value of the program's summary line.
std::string field(const std::string& summary, const std::string& key) {
    std::istringstream in(summary);
    std::string kv;
    while (in >> kv)
        if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
    return "?";
}

}  // namespace

Runner add_discover(CLI::App& app) {
    auto o = std::make_shared<Opts>();
    add_platform_files(app, o->platforms, "platform description(s) (.toml) or SimGrid XML (.xml with --hostfile)");
    app.add_option("-H,--hostfile", o->hostfile, "SimGrid XML: its hostfile");
    app.add_option("-n,--ranks", o->ranks, "ranks (default: the description's placement)")->check(kPositive);
    app.add_option("--placement", o->placements, "block and/or round-robin (descriptions; default: the description's)")
        ->delimiter(',');
    app.add_option("-o,--output", o->output, "write the discovered rank map here (one platform and placement)");
    app.add_flag("--check", o->check, "compare with the platform's own Topology: one table row per platform and placement");
    app.add_option("--threshold", o->threshold, "same distance class within this fraction (default 0.20, paper 003)");
    app.add_option("-r,--reps", o->reps, "exchanges per timed pair (default 5)");
    app.add_option("--probe-bytes", o->probe_bytes, "message size of the distance probe (default 1)");
    app.add_option("--split-bytes", o->split_bytes,
                   "message size of the bandwidth search of groups that look flat by latency (default 256K; 0: none)");
    app.add_flag("--exact-search", o->exact_search, "do not assume homogeneous sets (more pairs)");
    add_backend_settings(app, o->smpi, {"smpi"}, backends::kSmpiRunKeys);
    return [o]() -> int {
        if (o->platforms.empty()) throw Error("discover: give a platform (FILE or -p FILE)");
        std::vector<std::string> args;
        if (!o->threshold.empty()) args.insert(args.end(), {"--threshold", o->threshold});
        if (!o->reps.empty()) args.insert(args.end(), {"--reps", o->reps});
        if (!o->probe_bytes.empty()) args.insert(args.end(), {"--probe-bytes", o->probe_bytes});
        if (!o->split_bytes.empty()) args.insert(args.end(), {"--split-bytes", o->split_bytes});
        if (o->exact_search) args.push_back("--exact-search");
        std::vector<std::string> placements = o->placements;
        if (placements.empty()) placements.push_back("");
        const std::size_t runs = o->platforms.size() * placements.size();
        if (!o->output.empty() && runs != 1) throw Error("-o names one file: give one platform and one placement");
        const sim::SmpiSettings settings = backends::smpi_settings(o->smpi);
        int status = 0;
        if (o->check)
            std::printf("%-14s %-12s %6s %7s %6s %9s %9s %8s %8s\n", "platform", "placement", "ranks", "levels", "exact", "pairs",
                        "bw pairs", "% timed", "wall s");
        for (const auto& path : o->platforms)
            for (const auto& placement : placements) {
                const platform::SimPlatform p = platform::load_sim_platform(path, o->hostfile, o->ranks, placement);
                if (!o->check) std::fprintf(stderr, "gridcoll: discovering %d ranks of %s ...\n", p.ranks, path.c_str());
                const sim::SmpiDiscovery d = sim::discover_smpi(p, settings, args, o->check);
                if (d.status != 0) status = 1;
                if (!o->output.empty()) sys::write_output(o->output, d.rank_map);
                if (!o->check) {
                    for (const auto& line : d.report) std::printf("%s\n", line.c_str());
                    if (o->output.empty()) std::fputs(d.rank_map.c_str(), stdout);
                    continue;
                }
                const std::string name = p.description ? p.description->name : path;
                const double pairs = std::stod(field(d.summary, "pairs")), bw = std::stod(field(d.summary, "bw_pairs")),
                             distinct = std::stod(field(d.summary, "distinct_pairs")),
                             all = std::stod(field(d.summary, "all_pairs"));
                std::printf("%-14s %-12s %6d %7s %6s %9.0f %9.0f %8.2f %8.1f\n", name.c_str(),
                            placement.empty() ? "default" : placement.c_str(), p.ranks, field(d.summary, "levels").c_str(),
                            field(d.summary, "exact").c_str(), pairs, bw, all > 0 ? 100 * distinct / all : 0.0, d.wall_s);
                if (d.status != 0)
                    for (const auto& line : d.report)
                        if (line.find("NO") != std::string::npos) std::printf("    %s\n", line.c_str());
                std::fflush(stdout);
            }
        return status;
    };
}

}  // namespace gridcoll::cli
