// The tree packing between sites, for the front ends (gridcoll platform show / bounds, Python):
// the throughput bounds of the collectives on a Topology's sites and the trees the packed
// methods (bcast/allgather/... `packed`) stream along. The planner itself is internal
// (algorithms/packing/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll {

// A collective's bound on the sites of Topology level `level` (issue 33's definitions): the
// throughput term plus the deepest least-latency path's latency, in seconds. `bytes` as in
// Request (bcast, reduce, allreduce: the vector; allgather, reduce_scatter_block: a rank's
// block); `root` a rank. Collectives without a bound here (scatter, ...): Error.
struct SiteBound {
    double seconds = 0;     // throughput term + latency
    double throughput = 0;  // the throughput term alone
    double latency = 0;     // the deepest path's
};
SiteBound site_bound(const Topology& t, int level, Collective c, std::uint64_t bytes, int root = 0);

// A readable account of level `level`'s sites: the network (links, or the full-mesh stand-in),
// the bounds of bcast (from `root`, `bcast_bytes`), allgather (`block_bytes` a rank) and
// allreduce (`bcast_bytes`), and the trees each plans, with their rates and depths, and the
// planning time.
std::string describe_site_packing(const Topology& t, int level, std::uint64_t bcast_bytes, std::uint64_t block_bytes,
                                  int root = 0);

// The levels whose clusters the packed methods can treat as sites: more than one cluster, not the
// deepest level.
std::vector<int> site_levels(const Topology& t);

}  // namespace gridcoll
