// The engine of the event simulator: replays every rank's schedule of one operation (see
// gridcoll/event_sim.hpp for the semantics). Internal to sim/src/; the public entry points are
// gridcoll::sim::simulate (simulate.cpp).
#pragma once

#include <span>

#include "gridcoll/sim/event_sim.hpp"

namespace gridcoll::sim::detail {

SimResult run_simulation(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                         std::span<const model::PLogPParams> levels, const SimOptions& options,
                         std::span<const PairParams<model::PLogPParams>> pairs,
                         std::span<const ClusterParams<model::PLogPParams>> clusters);
SimResult run_simulation(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                         std::span<const model::LogGPParams> levels, const SimOptions& options,
                         std::span<const PairParams<model::LogGPParams>> pairs,
                         std::span<const ClusterParams<model::LogGPParams>> clusters);

}  // namespace gridcoll::sim::detail
