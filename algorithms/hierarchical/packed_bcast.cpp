// Packed-trees broadcast (gridcoll's, issue 33): the message crosses the WAN along a set of
// weighted spanning trees over the sites, packed into the sites' network as the platform routes
// it — any graph, not only a full mesh (a ring, hubs, a partial mesh with links of their own
// speeds). After ForestColl (Zhao et al., "ForestColl: Throughput-Optimal Collective
// Communications on Heterogeneous Network Fabrics", 2024) and Blink (Wang et al., "Blink: Fast
// and Generic Collectives for Distributed ML", MLSys 2020), which pack spanning trees into one
// machine's GPU links; here the trees join sites of a cluster of clusters ([P000], [P001]) and
// each tree edge is a WAN route. The packing is algorithms/packing/packing.hpp (Garg and
// Könemann's multiplicative weights with Edmonds' least-cost arborescence as the oracle); a
// message too small to gain from it takes the tree of least latency instead.
//
// Share k of the message (in proportion to the rate tree k's streams get when the network shares
// its links as TCP and SimGrid do: achieved_rates, packing.hpp) streams in pieces from the root along
// tree k: every site's sink receives it, hands the pieces it must pass on straight to its
// forwarder, which sends them to the sinks of its children in tree k, and starts a chain through
// the site (out_trees.hpp). The root's own site gets the whole message down a chain from the root.
// Where the trees that reach the rate are deeper than the least-latency tree (a ring's two chains
// cross every site, the shortest paths half of them), the message's last bytes follow them along
// that tree (bcast_tail, out_trees.hpp), sized so that both end together.
//
//   root ==share 0==> sink(a) --> fwd(a) ==share 0==> sink(b) ...   (tree 0)
//   root ==share 1==> sink(b) --> fwd(b) ==share 1==> sink(a) ...   (tree 1)
//   sink(s) -> m1 -> m2 -> ... -> fwd(s)                            (each site, every piece)
//
// Cost, trees of rates R_k summing to R over the WAN: the deepest tree's route latencies plus
// M / R (R reaches the smallest root-to-site max-flow where the trees fit the routes), plus the
// in-site chain of a piece, (n - 1)(L_l + seg / B_l); a tail of rate r over a tree h shallower
// than the deepest H takes r (H - h) / R off that. On a full mesh (a link of its own per site
// pair) the packing's trees are wanstream's two-hop trees, R = the sum of the root site's links,
// and packed runs wanstream's builder, which sizes the shares to the links — unless the links are
// uneven enough that every two-hop share crosses a slow one: there trees of one rate (up to 32 of
// them, unit_trees.hpp) carry the message where they beat the two-hop shares' rate by 15 %, with
// the fewest receives posted that keep a link busy (the window W adds W pieces' time a hop); where
// asked (runs=N or runs=auto), each tree's stream handed at every site to one member at a time in
// runs (out_runs.cpp), which adds the last run's LAN chain, its bytes over the LAN speed, and a
// WAN latency; where asked (hub=1) a site of four members or more takes the trees' streams in
// turn at two sinks, which give them to a hub, which gives them to the forwarder and the other
// sink at once (OutTrees::hub_sites): a LAN hop more, 2 (L_l + seg / B_l) a piece.
//
// References: [P000], [P001], [P004] (algorithms/REFERENCES.md; also its "Tree packing" part).
#include "../core/builders.hpp"
#include "../packing/out_trees.hpp"
#include "../packing/unit_trees.hpp"
#include "compose.hpp"

namespace gridcoll::detail {

Schedule bcast_packed(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.bytes == 0 || r.size == 1) return s;
    const Topology& t = *r.topology;
    const int level = site_level(t, r.params.cluster_level);
    const Sites sites = sites_at(t, level);
    const SiteGraph g = site_graph(t, sites, level);
    const int root_site = sites.site_of[static_cast<std::size_t>(r.root)];
    const auto unit = full_mesh(g) ? taken_unit_bcast_trees(g, root_site, static_cast<double>(r.bytes), r.params.trees) : nullptr;
    if (full_mesh(g) && !unit) return bcast_wanstream(r);
    Composer c(s);
    OutTrees out(r, c, sites, g, level, r.params.segment, r.params.wan_window);
    const std::vector<Span> whole{Span{Buf::Out, 0, r.bytes}};
    if (unit) {
        // Runs handed to one member at a time, or two sinks and a hub, where asked (runs=N,
        // runs=auto; hub=1): they serve SimGrid's sharing, not TCP's (docs/design/handed-runs.md,
        // hub-sites.md), so one sink a site by default.
        std::size_t most = 1;
        for (const auto& m : sites.members) most = std::max(most, m.size());
        const auto lan = t.link(level);
        const int runs = r.params.runs != MethodParams::kAutoRuns
                             ? r.params.runs
                             : handed_runs(g, unit->roots.front(), r.bytes, r.params.segment, lan ? lan->bandwidth_Bps : 0.0,
                                           static_cast<int>(most));
        if (runs > 1) out.hand_runs(runs);
        else out.hub_sites(r.params.hub);
        out.add_source(root_site, r.root, whole, unit->roots.front(), true);
    } else if (sites.count() == 1) {
        out.add_source(root_site, r.root, whole, RootTrees{root_site, static_cast<double>(r.bytes), {}}, true);
    } else {
        const auto plan = plan_trees(g, {{root_site, static_cast<double>(r.bytes)}}, with_trees({}, r.params.trees));
        // Shares by the rates the network will give each tree's streams, not the planned ones.
        const RootTrees trees = with_achieved_rates(g, *plan, true).front();
        // The tail is one more tree: none where the method's key trees=N already has N.
        const bool room = r.params.trees == 0 || trees.trees.size() < static_cast<std::size_t>(r.params.trees);
        const BcastTail tail = room ? bcast_tail(g, trees, r.bytes, r.params.segment, r.elem) : BcastTail{};
        const std::uint64_t head = r.bytes - tail.bytes;
        out.add_source(root_site, r.root, {Span{Buf::Out, 0, head}}, trees, true);
        if (tail.bytes) out.add_tail(root_site, r.root, {Span{Buf::Out, head, tail.bytes}}, tail.tree);
    }
    out.build();
    return s;
}

}  // namespace gridcoll::detail
