#include "simulate_event.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "gridcoll/collective.hpp"
#include "gridcoll/event_sim.hpp"
#include "gridcoll/platform.hpp"
#include "gridcoll/text.hpp"
#include "gridcoll/units.hpp"
#include "model_params.hpp"
#ifdef GRIDCOLL_HAVE_SIMGRID_IMPORT
#include "gridcoll/simgrid_import.hpp"
#endif

namespace gridcoll::cli {

namespace {

Topology topology_of(const EventRun& r) {
    const std::string ext = std::filesystem::path(r.platform).extension().string();
    if (ext == ".toml") return platform::topology(platform::load_platform(r.platform), r.ranks);
#ifdef GRIDCOLL_HAVE_SIMGRID_IMPORT
    if (ext == ".xml") {
        if (r.hostfile.empty()) throw Error("a SimGrid XML platform needs --hostfile");
        return topology_from_simgrid(r.platform, r.hostfile);
    }
#endif
    throw Error("platform '" + r.platform + "': the event backend takes a description (.toml) or SimGrid XML (.xml)");
}

}  // namespace

int run_event_backend(const EventRun& r) {
    const Topology topo = topology_of(r);
    const int P = r.ranks > 0 ? std::min(r.ranks, topo.size()) : topo.size();
    if (r.ranks > topo.size())
        throw Error("--ranks " + std::to_string(r.ranks) + " exceeds the " + std::to_string(topo.size()) + " placed ranks");
    // Parameters: a parameter file, or those derived from the description's links.
    const std::string params_file = r.params.empty() ? r.platform : r.params;
    const model::ParamSet params = load_model_params(params_file);
    const sim::ModelKind kind = r.model == "loggp" ? sim::ModelKind::LogGP : sim::ModelKind::PLogP;
    const Collective coll = parse_collective(r.collective);
    const auto sizes = parse_byte_list(r.bytes);
    const std::uint64_t seg = parse_bytes(r.segment);
    // The first P ranks of the placement (a prefix keeps the hierarchy of the description).
    std::vector<std::vector<int>> ids(static_cast<std::size_t>(P));
    std::vector<std::string> names;
    for (int l = 0; l < topo.levels(); ++l) names.push_back(topo.level_name(l));
    for (int rank = 0; rank < P; ++rank)
        for (int l = 0; l < topo.depth(rank); ++l) ids[static_cast<std::size_t>(rank)].push_back(topo.cluster(rank, l));
    std::vector<std::optional<LevelLink>> links;
    for (int l = 0; l < topo.levels(); ++l) links.push_back(topo.link(l));
    const Topology sub(std::move(ids), names, links);

    sim::SimOptions opt;
    opt.synchronous_sends = r.sync_sends;
    for (const auto& name : r.shared_links.empty() ? std::vector<std::string>{} : split_list(r.shared_links)) {
        int l = -1;
        std::string valid;
        for (int k = 0; k < sub.levels(); ++k) {
            if (sub.level_name(k) == name || std::to_string(k) == name) l = k;
            valid += (valid.empty() ? "" : ", ") + sub.level_name(k);
        }
        if (l < 0) throw Error("--shared-links: no level '" + name + "' (levels: " + valid + ")");
        if (l + 1 >= sub.levels())
            throw Error("--shared-links: level '" + name + "' is the deepest; links join clusters of the level below it");
        opt.shared_link_levels |= 1u << l;
    }

    std::printf("backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n");
    for (const auto& alg : r.algorithms) {
        for (auto bytes : sizes) {
            std::vector<double> times;
            for (int rep = 0; rep < r.reps; ++rep) {
                Request q;
                q.coll = coll;
                q.size = P;
                q.root = r.root >= 0 ? r.root : rep % P;
                q.bytes = coll == Collective::Barrier ? 0 : bytes;
                q.params.segment = seg;
                q.params.fanout = r.fanout;
                times.push_back(sim::simulate(q, alg, &sub, params, kind, opt).time);
            }
            std::vector<double> sorted = times;
            std::sort(sorted.begin(), sorted.end());
            const std::size_t n = sorted.size();
            const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
            std::printf("event-%s%s,%s,%s,%d,%llu,%llu,%d,%s,%d,%.9g,%.9g,%.9g,model\n", r.model.c_str(),
                        opt.shared_link_levels ? "-links" : "", r.collective.c_str(),
                        alg.c_str(), P, static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(seg), r.fanout,
                        r.root >= 0 ? std::to_string(r.root).c_str() : "rotate", r.reps, median, sorted.front(), sorted.back());
            std::fflush(stdout);
        }
    }
    return 0;
}

}  // namespace gridcoll::cli
