// The network that joins the clusters of one Topology level — "the sites" — as the platform
// describes it: a graph of directed links between sites and routers (a ring's links, a star's
// hub, a partial mesh with links of their own speeds) and the route the platform takes from
// every site to every other. A "direct" message from site a to site b rides every link of
// route(a, b), so two routes that share a link share its bandwidth: this is what the tree
// packing (algorithms/packing/) plans with.
//
// Vertices: a site is its cluster id at the level (>= 0); routers and other points inside the
// network are negative (-1, -2, ...). A link carries one direction (a full-duplex link is two
// links); a medium shared by both directions is one link that routes in either direction use.
// `joins` are connections without a cost of their own (a zone's inside and its place in the
// network above, where it has no gateway): they matter to the max-flow bounds only.
//
// Text form (rank map lines, Topology::to_text), `level` = the sites' level:
//   netlink <level> <from> <to> <latency_s> <bandwidth_Bps> <name>   (numbered from 0 in order)
//   netjoin <level> <from> <to>
//   route <level> <site a> <site b> <link index>...
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gridcoll {

struct NetLink {
    int from = 0, to = 0;  // vertices
    double latency_s = 0;
    double bandwidth_Bps = 0;  // > 0
    std::string name;          // the platform's name for it (e.g. "c0:c1 up")
};

struct SiteNetwork {
    std::vector<NetLink> links;
    std::vector<std::pair<int, int>> joins;
    std::map<std::pair<int, int>, std::vector<int>> routes;  // (site a, site b), a != b -> link indices in order

    bool empty() const { return links.empty(); }
    // The route from a to b, or nullptr.
    const std::vector<int>* route(int a, int b) const {
        const auto it = routes.find({a, b});
        return it == routes.end() ? nullptr : &it->second;
    }
    // Sum of the latencies along route(a, b) (0 when there is none).
    double route_latency(int a, int b) const;
    // Checks indices, ends and numbers; throws Error naming the first problem.
    void check() const;
};

// The rank-map lines of `net` for level `level`, and their reader (one line's words, split at
// blanks; `at` names the line in errors). Errors: Error with the line's text.
std::string site_network_text(int level, const SiteNetwork& net);
// Reads one netlink / netjoin / route line into nets[level]; throws Error("...") without origin.
void read_site_network_line(const std::vector<std::string>& words, std::map<int, SiteNetwork>& nets);

}  // namespace gridcoll
