// Random multilevel Topologies for tests and `gridcoll check`: the odd shapes real placements
// produce and hierarchical algorithms must survive — uneven clusters, clusters of one rank,
// ranks that stop at different depths, interleaved (round-robin-like) rank numbering, 1 to 5
// levels, and WAN links that differ between cluster pairs. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <string>

#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll {

struct RandomTopologyOptions {
    int min_levels = 1, max_levels = 5;  // levels drawn uniformly from this range
    double interleave = 0.5;             // probability that rank numbers are shuffled across clusters
    double stop = 0.15;                  // probability that a cluster has no deeper level
    double pair_links = 0.5;             // probability of WAN links that differ (level 0's pair
                                         // links, 1 to 3 MB/s), with two levels or more
};

Topology random_topology(int size, std::uint64_t seed, const RandomTopologyOptions& opt = {});

// One line for a test log: levels, clusters per level and their sizes' range.
std::string describe(const Topology& t);

}  // namespace gridcoll
