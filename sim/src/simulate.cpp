// The public entry points of the event simulator (gridcoll/event_sim.hpp): by name or by
// Algorithm value, under PLogP or LogGP, with a Topology, a LevelMap or a ParamSet.
#include "gridcoll/sim/event_sim.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "simulator.hpp"

namespace gridcoll::sim {

SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::PLogPParams> levels, const SimOptions& options,
                   std::span<const PairParams<model::PLogPParams>> pairs,
                   std::span<const ClusterParams<model::PLogPParams>> clusters) {
    return detail::run_simulation(proto, algorithm, topology, map, levels, options, pairs, clusters);
}

SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::LogGPParams> levels, const SimOptions& options,
                   std::span<const PairParams<model::LogGPParams>> pairs,
                   std::span<const ClusterParams<model::LogGPParams>> clusters) {
    return detail::run_simulation(proto, algorithm, topology, map, levels, options, pairs, clusters);
}

SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::PLogPParams> levels, const SimOptions& options) {
    return simulate(proto, find_algorithm(proto.coll, algorithm), topology, map, levels, options);
}

SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::LogGPParams> levels, const SimOptions& options) {
    return simulate(proto, find_algorithm(proto.coll, algorithm), topology, map, levels, options);
}
SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   std::span<const model::PLogPParams> levels, const SimOptions& options) {
    if (!topology) return simulate(proto, algorithm, nullptr, nullptr, levels, options);
    const LevelMap map(*topology);
    return simulate(proto, algorithm, topology, &map, levels, options);
}

SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   std::span<const model::LogGPParams> levels, const SimOptions& options) {
    if (!topology) return simulate(proto, algorithm, nullptr, nullptr, levels, options);
    const LevelMap map(*topology);
    return simulate(proto, algorithm, topology, &map, levels, options);
}

namespace {

// The parameters of one model kind: every level's (a stand-in where a level has none of its own
// but every message priced there has a pair's or a cluster's), every pair's and every cluster's.
template <class P>
struct KindParams {
    std::vector<P> levels;
    std::vector<PairParams<P>> pairs;
    std::vector<ClusterParams<P>> clusters;
};

// Level l has no parameters of its own: every message priced there needs its cluster's or its
// pair's. A message at level l joins two ranks of one level-l cluster c in different clusters
// of level l + 1 (at the deepest level: two ranks of c); with shared links at level l - 1 every
// rank's port is priced at its level-l cluster too. Throws Error naming what is missing.
template <class P>
void check_covered(const Topology& t, std::size_t l, const KindParams<P>& k, const SimOptions& options,
                   const std::string& what) {
    const int lv = static_cast<int>(l);
    std::set<int> own;  // clusters with their own
    for (const auto& c : k.clusters)
        if (c.level == lv) own.insert(c.id);
    std::set<std::pair<int, int>> pairs;
    for (const auto& p : k.pairs)
        if (p.level == lv) pairs.emplace(std::min(p.a, p.b), std::max(p.a, p.b));
    const bool ports = l > 0 && l - 1 < 32 && ((options.shared_link_levels >> (l - 1)) & 1u);
    std::map<int, std::set<int>> members;  // cluster -> its clusters of level l + 1 (or ranks)
    for (int r = 0; r < t.size(); ++r) {
        const int c = t.cluster(r, lv);
        if (c < 0) continue;
        if (ports && !own.count(c))
            throw Error(what + ": cluster " + std::to_string(c) + " (ports of shared links at the level above)");
        members[c].insert(lv + 1 < t.levels() && t.cluster(r, lv + 1) >= 0 ? t.cluster(r, lv + 1) : -1 - r);
    }
    for (const auto& [c, m] : members) {
        if (own.count(c) || m.size() < 2) continue;
        for (auto a = m.begin(); a != m.end(); ++a)
            for (auto b = std::next(a); b != m.end(); ++b)
                if (*a < 0 || !pairs.count({*a, *b}))
                    throw Error(what + " (it has none of its own): cluster " + std::to_string(c) +
                                (*a < 0 ? std::string() : ", between its clusters " + std::to_string(*a) + " and " +
                                                              std::to_string(*b)));
    }
}

template <class P>
KindParams<P> kind_params(const model::ParamSet& params, const Topology* topology, std::size_t need, const char* kind,
                          std::optional<P> model::LevelParams::*field, const SimOptions& options) {
    auto name = [&](std::size_t l) {
        return topology ? "level " + std::to_string(l) + " (" + topology->level_name(static_cast<int>(l)) + ")"
                        : "level " + std::to_string(l);
    };
    const auto missing = [&](std::size_t l) { return "simulate: no " + std::string(kind) + " parameters for " + name(l); };
    KindParams<P> out;
    if (topology) {
        for (const model::PairLevelParams& p : params.pairs) {
            if (!(p.params.*field))
                throw Error(missing(static_cast<std::size_t>(p.level)) + " between its clusters " + std::to_string(p.a) +
                            " and " + std::to_string(p.b));
            out.pairs.push_back({p.level, p.a, p.b, *(p.params.*field)});
        }
        for (const model::ClusterLevelParams& c : params.clusters) {
            if (!(c.params.*field))
                throw Error(missing(static_cast<std::size_t>(c.level)) + ": cluster " + std::to_string(c.id));
            out.clusters.push_back({c.level, c.id, *(c.params.*field)});
        }
    }
    for (std::size_t l = 0; l < need; ++l) {
        if (params.levels[l].*field) {
            out.levels.push_back(*(params.levels[l].*field));
            continue;
        }
        if (!topology) throw Error(missing(l));
        check_covered(*topology, l, out, options, missing(l));
        out.levels.push_back(P{});  // never used: every message at this level has another's
    }
    return out;
}

}  // namespace

SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   const model::ParamSet& params, ModelKind kind, SimOptions options) {
    options.gamma = params.gamma;
    const std::size_t need = topology ? static_cast<std::size_t>(topology->levels()) : 1;
    if (params.levels.size() < need)
        throw Error("simulate: parameter set '" + params.origin + "' has " + std::to_string(params.levels.size()) +
                    " level(s), the " +
                    (topology ? "topology has " + std::to_string(need) : std::string("flat network needs 1")));
    const LevelMap map = topology ? LevelMap(*topology) : LevelMap();
    const LevelMap* m = topology ? &map : nullptr;
    const Algorithm& alg = find_algorithm(proto.coll, algorithm);
    if (kind == ModelKind::PLogP) {
        const auto p = kind_params(params, topology, need, "PLogP", &model::LevelParams::plogp, options);
        return simulate(proto, alg, topology, m, std::span<const model::PLogPParams>(p.levels), options,
                        std::span<const PairParams<model::PLogPParams>>(p.pairs),
                        std::span<const ClusterParams<model::PLogPParams>>(p.clusters));
    }
    const auto p = kind_params(params, topology, need, "LogGP", &model::LevelParams::loggp, options);
    return simulate(proto, alg, topology, m, std::span<const model::LogGPParams>(p.levels), options,
                    std::span<const PairParams<model::LogGPParams>>(p.pairs),
                    std::span<const ClusterParams<model::LogGPParams>>(p.clusters));
}

}  // namespace gridcoll::sim
