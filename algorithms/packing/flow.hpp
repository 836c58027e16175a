// Graph algorithms of the tree packing: max-flow (Dinic) on the sites' vertex graph, and the
// minimum-cost arborescence (Chu-Liu / Edmonds) on the complete digraph of sites.
//
// Internal to algorithms/.
#pragma once

#include <vector>

#include "site_graph.hpp"

namespace gridcoll::detail {

// The most bytes per second that can flow from the `sources` to the `sinks` (vertices of g)
// over its links (each its capacity, in its direction) and joins (unlimited).
double max_flow(const SiteGraph& g, const std::vector<int>& sources, const std::vector<int>& sinks);

// The arborescence of least total cost rooted at `root` on n vertices, where cost[a][b] is the
// cost of arc a -> b: parent[v] per vertex (-1 at the root). Every arc exists (a complete
// digraph, as between sites, where any site reaches any other along its route).
std::vector<int> min_arborescence(int n, int root, const std::vector<std::vector<double>>& cost);

}  // namespace gridcoll::detail
