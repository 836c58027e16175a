// The sites' network as the tree packing sees it (algorithms/packing/): n sites (in Sites order),
// directed links with a capacity and a latency, the vertices they join (sites 0..n-1, then routers
// and other points), and the route from every site to every other as the links it rides.
//
// Internal to algorithms/.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "../hierarchical/sites.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::detail {

struct SiteGraph {
    int n = 0;                                // sites
    int vertices = 0;                         // sites, then the other points
    std::vector<double> cap, lat;             // per link: bytes/s, s
    std::vector<std::pair<int, int>> ends;    // per link: (from, to) vertices
    std::vector<std::pair<int, int>> joins;   // connections without cost (max-flow only)
    std::vector<std::vector<int>> routes;     // [a * n + b]: link indices
    std::vector<double> route_lat;            // [a * n + b]
    bool from_platform = false;               // a site network, not the mesh stand-in

    int links() const { return static_cast<int>(cap.size()); }
    const std::vector<int>& route(int a, int b) const { return routes[static_cast<std::size_t>(a * n + b)]; }
    double latency(int a, int b) const { return route_lat[static_cast<std::size_t>(a * n + b)]; }
    // A hash of everything above (plans are cached by it).
    std::uint64_t fingerprint() const;
};

// The Topology's site network at the sites' level where it has one covering every site; else a
// full mesh: a link per ordered pair of sites with the level above's numbers (pair links where
// set, else the level's link; bandwidth 1 B/s and latency 0 where unknown).
SiteGraph site_graph(const Topology& t, const Sites& sites, int level);

// The least default piece of the streams along packed trees (as wanstream's): a piece pays a
// message's overheads whatever its size.
constexpr std::uint64_t kLeastPiece = 8 * 1024;
// The shortest route latency between two sites (0 for one site).
double least_route_latency(const SiteGraph& g);

// True where the network is a full mesh: every route is one link that no other route rides.
// There the packed broadcast and allreduce run wanstream's and multitree's builders (two-hop
// trees and pairwise shards, sized to the links' speeds).
bool full_mesh(const SiteGraph& g);
// A full mesh whose links all have one capacity: there the packed allgather is the streamed
// leaders' (every site's blocks straight to every other).
bool uniform_mesh(const SiteGraph& g);

// A site graph from a list of undirected links (a, b, latency, bandwidth) between n sites,
// each a full-duplex pair, routed along least-latency paths (ties: fewest hops): for tests
// and for planners that make their own graphs.
struct UndirectedLink {
    int a, b;
    double latency_s, bandwidth_Bps;
};
SiteGraph graph_of_links(int n, const std::vector<UndirectedLink>& links);

}  // namespace gridcoll::detail
