// The registry: (collective, algorithm name) -> builder. The CLI, the benchmark driver, the
// tests and (later) the Python bindings all enumerate this one table.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll {

using Builder = Schedule (*)(const Request&);

// One row of the registry; rows are written with designated initializers, e.g.
//   {.coll = C::Bcast, .name = "kary", .build = bcast_kary, .segmented = true, .uses_fanout = true,
//    .description = "k-ary tree of fan-out k, MagPIe's d-ary tree (000, 002)"}
struct Algorithm {
    Collective coll = Collective::Bcast;
    std::string name;
    Builder build = nullptr;
    bool segmented = false;    // reads MethodParams::segment (method key seg)
    bool uses_fanout = false;  // reads MethodParams::fanout (method key k)
    bool uses_levels = false;  // reads MethodParams::levels (per-level methods, [..|..])
    bool uses_cluster_level = false;  // reads MethodParams::cluster_level (method key level)
    bool uses_wan_window = false;     // reads MethodParams::wan_window (method key win)
    bool uses_shares = false;         // reads MethodParams::equal_shares (method key shares)
    bool uses_trees = false;          // reads MethodParams::trees (method key trees)
    bool uses_runs = false;           // reads MethodParams::runs and ::hub (method keys runs, hub)
    bool uses_cut_shards = false;     // reads MethodParams::cut_shards (method key shards)
    // Reductions only: combines in rank order, so it is correct for a non-commutative
    // operation. An algorithm without it refuses such a request with an Error.
    bool keeps_order = true;
    bool needs_topology = false;  // builds from Request::topology (hierarchical algorithms)
    // Irregular collectives only: a rank reads counts MPI gives only to others (gatherv and
    // scatterv: the root's; alltoallv: other ranks' rows), so an MPI front end must share them
    // first. The flat methods read only what MPI gives the rank itself.
    bool needs_all_counts = false;
    std::string description;      // one line, citing its paper (algorithms/REFERENCES.md)
};

const std::vector<Algorithm>& all_algorithms();
std::vector<const Algorithm*> algorithms_for(Collective c);
// Throws Error listing the valid names for the collective when `name` is unknown.
const Algorithm& find_algorithm(Collective c, std::string_view name);

// Validates the request, then builds rank r.rank's schedule with the named algorithm.
Schedule build_schedule(const Request& r, std::string_view algorithm);

}  // namespace gridcoll
