// The multilevel Topology of a placed platform (Karonis' view, gridcoll/topology.hpp).
//
// Level d (0 = the root zone) is zone depth d, named by the `level` of the first zone at that
// depth (depth first); the last level is "node". A rank's cluster id at level d is the index of
// its zone at depth d among all zones at that depth (depth first), and at the node level its host
// index: ids are stable whatever the placement. A leaf shallower than the deepest one stands for
// itself at the depths below it, so every rank has the same depth and the node level is last.
//
// Gateways: a zone whose gateway is one of its nodes gets the first rank placed on that node as
// its cluster's gateway (Topology::set_gateway), which hierarchical algorithms take as master.
//
// Level links: the zones' `link` where every zone at that depth has the same latency and
// bandwidth (and none is explicit), else unknown, and then each zone's own as its cluster's link
// (Topology::set_cluster_link; karonis-grid's machines); the node level gets the leaves'
// `core_link` under the same rule. An explicit group zone also gives a pair link (Topology::set_pair_link)
// for every two of its members: FORMAT.md's route, the least-latency path along its links, with
// the latencies summed and the smallest bandwidth on it. (Explicit leaves, links between nodes,
// give none.)
#include <algorithm>
#include <limits>
#include <optional>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "placement.hpp"
#include "site_network_build.hpp"

namespace gridcoll::platform {

namespace {

struct LevelInfo {
    std::string name;
    std::optional<LevelLink> link;
    bool named = false;  // by the first zone really at this depth (not a leaf standing in)
    bool agree = true;
    int count = 0;  // zones at this depth so far: the next cluster id

    void add(const LinkSpec& l, bool known) {
        const LevelLink ll{l.latency_s, l.bandwidth_Bps};
        if (!known)
            agree = false;
        else if (count == 0)
            link = ll;
        else if (!link || link->latency_s != ll.latency_s || link->bandwidth_Bps != ll.bandwidth_Bps)
            agree = false;
        ++count;
    }
};

int max_depth(const Zone& z) {
    int d = 0;
    for (const auto& c : z.children) d = std::max(d, 1 + max_depth(c));
    return d;
}

// Assigns cluster ids depth first; `ids` holds the ids of the zones above. Appends each leaf's
// ids (down to the deepest zone level) to leaf_ids, in hosts() order.
// A zone whose gateway is one of its nodes: (depth, node name).
using GatewayNodes = std::vector<std::pair<int, std::string>>;

struct PairLink {
    int level, a, b;
    LevelLink link;
};

// A zone's own link as the link of its cluster (level, id); unknown for an explicit zone.
struct ClusterLink {
    int level, id;
    LevelLink link;
    bool known;
};

// The routes between the members of explicit group zone `z`, whose first member has cluster id
// `first_id` at level `depth` + 1 (Floyd-Warshall on latency; the bandwidth of a route is its
// smallest link's).
void explicit_routes(const Zone& z, int depth, int first_id, std::vector<PairLink>& out) {
    const std::size_t n = z.children.size();
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<LevelLink>> r(n, std::vector<LevelLink>(n, LevelLink{inf, 0}));
    const auto index = [&](const std::string& name) {
        for (std::size_t i = 0; i < n; ++i)
            if (z.children[i].name == name) return i;
        return n;
    };
    for (const ExplicitLink& l : z.links) {
        const std::size_t a = index(l.a), b = index(l.b);
        if (a == n || b == n) continue;  // (the loader has checked the names)
        if (l.link.latency_s < r[a][b].latency_s) r[a][b] = r[b][a] = LevelLink{l.link.latency_s, l.link.bandwidth_Bps};
    }
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                if (i != j && r[i][k].latency_s + r[k][j].latency_s < r[i][j].latency_s)
                    r[i][j] = LevelLink{r[i][k].latency_s + r[k][j].latency_s,
                                        std::min(r[i][k].bandwidth_Bps, r[k][j].bandwidth_Bps)};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
            if (r[i][j].latency_s < inf && r[i][j].bandwidth_Bps > 0)
                out.push_back({depth, first_id + static_cast<int>(i), first_id + static_cast<int>(j), r[i][j]});
}

struct Walk {
    std::vector<LevelInfo> levels;
    LevelInfo node;
    std::vector<int> ids;  // of the zones above
    std::vector<std::pair<std::vector<int>, int>> leaf_ids;  // (ids, nodes) per leaf, depth first
    std::vector<LevelLink> leaf_core;                         // core_link per leaf
    GatewayNodes gateways;
    std::vector<PairLink> pairs;
    std::vector<ClusterLink> cluster_links;

    // Zone z takes the next cluster id at `depth`.
    int add(int depth, const Zone& z) {
        auto& lv = levels[static_cast<std::size_t>(depth)];
        const int id = lv.count;
        const bool known = z.network != Interconnect::Explicit;
        lv.add(z.link, known);
        cluster_links.push_back({depth, id, LevelLink{z.link.latency_s, z.link.bandwidth_Bps}, known});
        return id;
    }
};

void walk(const Zone& z, int depth, int deepest, Walk& w) {
    auto& lv = w.levels[static_cast<std::size_t>(depth)];
    if (!lv.named) lv.name = z.level.empty() ? "level" + std::to_string(depth) : z.level;
    lv.named = true;
    if (z.gateway && !z.gateway->node.empty()) w.gateways.emplace_back(depth, z.gateway->node);
    w.ids.push_back(w.add(depth, z));
    if (z.is_leaf()) {
        std::vector<int> mine = w.ids;
        for (int d = depth + 1; d <= deepest; ++d) mine.push_back(w.add(d, z));  // the leaf stands for itself below
        w.node.add(z.core_link, true);
        w.leaf_core.push_back(LevelLink{z.core_link.latency_s, z.core_link.bandwidth_Bps});
        w.leaf_ids.emplace_back(std::move(mine), z.nodes);
    } else {
        // Each child takes the next cluster id at depth + 1.
        if (z.network == Interconnect::Explicit)
            explicit_routes(z, depth, w.levels[static_cast<std::size_t>(depth) + 1].count, w.pairs);
        for (const auto& c : z.children) walk(c, depth + 1, deepest, w);
    }
    w.ids.pop_back();
}

}  // namespace

Topology topology(const Platform& p, int ranks) {
    const int deepest = max_depth(p.root);
    Walk w;
    w.levels.resize(static_cast<std::size_t>(deepest) + 1);
    walk(p.root, 0, deepest, w);
    const auto& levels = w.levels;
    const auto& leaf_ids = w.leaf_ids;
    std::vector<std::size_t> leaf_of;  // host index -> leaf index
    for (std::size_t l = 0; l < leaf_ids.size(); ++l)
        leaf_of.insert(leaf_of.end(), static_cast<std::size_t>(leaf_ids[l].second), l);

    std::vector<std::vector<int>> clusters;
    const std::vector<Host> all_hosts = hosts(p);
    const std::vector<std::size_t> placed = detail::place_rank_indices(p, ranks, all_hosts);
    for (std::size_t h : placed) {
        clusters.push_back(leaf_ids[leaf_of[h]].first);
        clusters.back().push_back(static_cast<int>(h));
    }
    std::vector<std::string> names;
    std::vector<std::optional<LevelLink>> links;
    for (const auto& lv : levels) {
        names.push_back(lv.name);
        links.push_back(lv.agree ? lv.link : std::nullopt);
    }
    names.push_back("node");
    links.push_back(w.node.agree ? w.node.link : std::nullopt);
    // Where a level's zones disagree: each placed cluster's own link (placed[l][id]: a rank
    // has cluster id at level l; only for those levels).
    std::vector<std::vector<char>> placed_at(levels.size() + 1);
    for (std::size_t l = 0; l < placed_at.size(); ++l)
        if (!(l < levels.size() ? levels[l].agree : w.node.agree))
            placed_at[l].assign(static_cast<std::size_t>(l < levels.size() ? levels[l].count : static_cast<int>(all_hosts.size())), 0);
    for (const auto& c : clusters)
        for (std::size_t l = 0; l < c.size(); ++l)
            if (!placed_at[l].empty()) placed_at[l][static_cast<std::size_t>(c[l])] = 1;
    Topology t(std::move(clusters), std::move(names), std::move(links));
    for (const PairLink& pl : w.pairs) t.set_pair_link(pl.level, pl.a, pl.b, pl.link);
    for (const ClusterLink& cl : w.cluster_links) {
        const auto& placed_here = placed_at[static_cast<std::size_t>(cl.level)];
        if (!placed_here.empty() && placed_here[static_cast<std::size_t>(cl.id)] && cl.known && cl.link.bandwidth_Bps > 0)
            t.set_cluster_link(cl.level, cl.id, cl.link);
    }
    const auto& hosts_placed = placed_at.back();
    for (std::size_t h = 0; h < hosts_placed.size(); ++h)
        if (hosts_placed[h]) t.set_cluster_link(deepest + 1, static_cast<int>(h), w.leaf_core[leaf_of[h]]);
    // A gateway node's first rank is its zone's gateway (none when no rank runs there).
    for (const auto& [depth, name] : w.gateways)
        for (std::size_t r = 0; r < placed.size(); ++r)
            if (all_hosts[placed[r]].name == name) {
                t.set_gateway(static_cast<int>(r), depth);
                break;
            }
    add_site_networks(p, t);
    return t;
}

}  // namespace gridcoll::platform
