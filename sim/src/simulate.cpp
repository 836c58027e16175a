// The public entry points of the event simulator (gridcoll/event_sim.hpp): by name or by
// Algorithm value, under PLogP or LogGP, with a Topology, a LevelMap or a ParamSet.
#include "gridcoll/event_sim.hpp"

#include <string>
#include <vector>

#include "simulator.hpp"

namespace gridcoll::sim {

SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::PLogPParams> levels, const SimOptions& options) {
    return detail::run_simulation(proto, algorithm, topology, map, levels, options);
}

SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::LogGPParams> levels, const SimOptions& options) {
    return detail::run_simulation(proto, algorithm, topology, map, levels, options);
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

SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   const model::ParamSet& params, ModelKind kind, SimOptions options) {
    options.gamma = params.gamma;
    const std::size_t need = topology ? static_cast<std::size_t>(topology->levels()) : 1;
    if (params.levels.size() < need)
        throw Error("simulate: parameter set '" + params.origin + "' has " + std::to_string(params.levels.size()) +
                    " level(s), the " +
                    (topology ? "topology has " + std::to_string(need) : std::string("flat network needs 1")));
    auto name = [&](std::size_t l) {
        return topology ? "level " + std::to_string(l) + " (" + topology->level_name(static_cast<int>(l)) + ")"
                        : "level " + std::to_string(l);
    };
    if (kind == ModelKind::PLogP) {
        std::vector<model::PLogPParams> v;
        for (std::size_t l = 0; l < need; ++l) {
            if (!params.levels[l].plogp) throw Error("simulate: no PLogP parameters for " + name(l));
            v.push_back(*params.levels[l].plogp);
        }
        return simulate(proto, algorithm, topology, std::span<const model::PLogPParams>(v), options);
    }
    std::vector<model::LogGPParams> v;
    for (std::size_t l = 0; l < need; ++l) {
        if (!params.levels[l].loggp) throw Error("simulate: no LogGP parameters for " + name(l));
        v.push_back(*params.levels[l].loggp);
    }
    return simulate(proto, algorithm, topology, std::span<const model::LogGPParams>(v), options);
}

}  // namespace gridcoll::sim
