// The public entry points of the event simulator (gridcoll/event_sim.hpp): by name or by
// Algorithm value, under PLogP or LogGP, with a Topology, a LevelMap or a ParamSet.
#include "gridcoll/event_sim.hpp"

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
                   std::span<const PairParams<model::PLogPParams>> pairs) {
    return detail::run_simulation(proto, algorithm, topology, map, levels, options, pairs);
}

SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::LogGPParams> levels, const SimOptions& options,
                   std::span<const PairParams<model::LogGPParams>> pairs) {
    return detail::run_simulation(proto, algorithm, topology, map, levels, options, pairs);
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
// but every two of its clusters have a pair's, or no message is priced there) and every pair's.
template <class P>
struct KindParams {
    std::vector<P> levels;
    std::vector<PairParams<P>> pairs;
};

// Every two clusters of level + 1 inside one cluster of `level`, as (lower id, higher id).
std::set<std::pair<int, int>> sibling_pairs(const Topology& t, int level) {
    std::map<int, std::set<int>> children;
    for (int r = 0; r < t.size(); ++r) {
        const int parent = t.cluster(r, level), child = t.cluster(r, level + 1);
        if (parent >= 0 && child >= 0) children[parent].insert(child);
    }
    std::set<std::pair<int, int>> out;
    for (const auto& [parent, kids] : children)
        for (auto a = kids.begin(); a != kids.end(); ++a)
            for (auto b = std::next(a); b != kids.end(); ++b) out.emplace(*a, *b);
    return out;
}

// No message is priced at level l: no two ranks share a cluster there (say one rank per node),
// and no shared link at level l - 1 takes its ports from it (SimOptions::shared_link_levels).
bool unused_level(const Topology& t, std::size_t l, const SimOptions& options) {
    if (l > 0 && l - 1 < 32 && ((options.shared_link_levels >> (l - 1)) & 1u)) return false;
    std::set<int> seen;
    for (int r = 0; r < t.size(); ++r) {
        const int c = t.cluster(r, static_cast<int>(l));
        if (c >= 0 && !seen.insert(c).second) return false;
    }
    return true;
}

template <class P>
KindParams<P> kind_params(const model::ParamSet& params, const Topology* topology, std::size_t need, const char* kind,
                          std::optional<P> model::LevelParams::*field, const SimOptions& options) {
    auto name = [&](std::size_t l) {
        return topology ? "level " + std::to_string(l) + " (" + topology->level_name(static_cast<int>(l)) + ")"
                        : "level " + std::to_string(l);
    };
    KindParams<P> out;
    for (const model::PairLevelParams& p : topology ? params.pairs : std::vector<model::PairLevelParams>{}) {
        if (!(p.params.*field))
            throw Error("simulate: no " + std::string(kind) + " parameters for the clusters " + std::to_string(p.a) +
                        " and " + std::to_string(p.b) + " of " + name(static_cast<std::size_t>(p.level)));
        out.pairs.push_back({p.level, p.a, p.b, *(p.params.*field)});
    }
    for (std::size_t l = 0; l < need; ++l) {
        if (params.levels[l].*field) {
            out.levels.push_back(*(params.levels[l].*field));
            continue;
        }
        // None of its own: every two clusters below it need a pair's (unless nothing uses it).
        if (topology && unused_level(*topology, l, options)) {
            out.levels.push_back(P{});
            continue;
        }
        std::set<std::pair<int, int>> have;
        for (const auto& p : out.pairs)
            if (static_cast<std::size_t>(p.level) == l) have.emplace(std::min(p.a, p.b), std::max(p.a, p.b));
        if (have.empty() || topology == nullptr || l + 1 >= need)
            throw Error("simulate: no " + std::string(kind) + " parameters for " + name(l));
        for (const auto& [a, b] : sibling_pairs(*topology, static_cast<int>(l)))
            if (!have.count({a, b}))
                throw Error("simulate: no " + std::string(kind) + " parameters for " + name(l) +
                            " (it has none of its own) between its clusters " + std::to_string(a) + " and " +
                            std::to_string(b));
        out.levels.push_back(P{});  // never used: every message at this level has a pair's
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
                        std::span<const PairParams<model::PLogPParams>>(p.pairs));
    }
    const auto p = kind_params(params, topology, need, "LogGP", &model::LevelParams::loggp, options);
    return simulate(proto, alg, topology, m, std::span<const model::LogGPParams>(p.levels), options,
                    std::span<const PairParams<model::LogGPParams>>(p.pairs));
}

}  // namespace gridcoll::sim
