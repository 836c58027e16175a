// Packed-trees allgather and allgatherv (gridcoll's, issue 33; the tree packing of
// packed_bcast.cpp, after ForestColl and Blink): every site spreads its ranks' blocks to every
// other site at once along its own weighted trees, all of them packed together into the sites'
// network as the platform routes it (a concurrent packing: every site's trees share the links),
// so that the slowest site's blocks arrive as early as the network allows.
//
//   1. in each site, a ring allgather of its members' blocks (every member then holds the site's);
//   2. site s's blocks stream from its forwarder along its trees, each tree a share, and every
//      site passes every piece on to its children and down its chain (out_trees.hpp).
//
// Cost, blocks of m bytes, sites of n ranks, C sites: (n - 1)(L_l + m / B_l) for the ring, then
// about the bound — the worst cut's bytes over its capacity, or all bytes times (C - 1) over all
// capacity — plus the deepest tree's latency, plus a piece's trip down the chain. On a full mesh
// of equal links (uniform_mesh) every tree is one direct link: the streamed leaders' allgather
// (seg=64K unless given) is that schedule, and packed runs it. On a full mesh of uneven links the
// trees are of one rate (unit_trees.hpp), which the network's sharing per message serves as
// planned, where they fit and each carries at least a few pieces.
//
// References: [P000], [P001], [MagPIe99] (algorithms/REFERENCES.md; also its "Tree packing" part).
#include "../core/builders.hpp"
#include "../packing/out_trees.hpp"
#include "../packing/unit_trees.hpp"
#include "compose.hpp"

namespace gridcoll::detail {

namespace {

// My own block into place, then a ring among my site's members over their blocks in Out.
void ring_in_site(const Request& r, Composer& c, const std::vector<int>& members) {
    const auto n = static_cast<int>(members.size());
    const int me = static_cast<int>(std::find(members.begin(), members.end(), r.rank) - members.begin());
    const auto block = [&](int i) {
        const int rank = members[static_cast<std::size_t>(((i % n) + n) % n)];
        return Span{Buf::Out, block_offset(r, rank), block_bytes(r, rank)};
    };
    if (block(me).len > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::In, 0, block(me).len}, block(me)});
    const int right = members[static_cast<std::size_t>((me + 1) % n)], left = members[static_cast<std::size_t>((me + n - 1) % n)];
    for (int i = 0; i + 1 < n; ++i) {
        if (block(me - i).len > 0) c.add(Step{Op::Send, Order::DstLeft, 0, right, block(me - i), {}});
        if (block(me - i - 1).len > 0) c.add(Step{Op::Recv, Order::DstLeft, 0, left, {}, block(me - i - 1)});
    }
}

// A site's blocks in Out, consecutive ranks' blocks as one span.
std::vector<Span> site_data(const Request& r, const std::vector<int>& members) {
    std::vector<Span> v;
    for (int m : members) {
        const Span b{Buf::Out, block_offset(r, m), block_bytes(r, m)};
        if (b.len == 0) continue;
        if (!v.empty() && v.back().off + v.back().len == b.off) v.back().len += b.len;
        else v.push_back(b);
    }
    return v;
}

}  // namespace

Schedule allgather_packed(const Request& r) {
    Schedule s(r.rank, r.size);
    const Topology& t = *r.topology;
    const int level = site_level(t, r.params.cluster_level);
    const Sites sites = sites_at(t, level);
    const SiteGraph g = site_graph(t, sites, level);
    if (uniform_mesh(g)) {  // every site's blocks straight to every other: the streamed leaders'
        Request direct = r;
        if (direct.params.segment == 0) direct.params.segment = 64 * 1024;
        return allgather_leaders(direct);
    }
    Composer c(s);
    ring_in_site(r, c, sites.members[static_cast<std::size_t>(sites.site_of[static_cast<std::size_t>(r.rank)])]);
    if (sites.count() == 1) return s;
    std::vector<Demand> demands;
    std::vector<std::vector<Span>> data;
    for (int site = 0; site < sites.count(); ++site) {
        data.push_back(site_data(r, sites.members[static_cast<std::size_t>(site)]));
        double bytes = 0;
        for (const Span& sp : data.back()) bytes += static_cast<double>(sp.len);
        if (bytes > 0) demands.push_back({site, bytes});
    }
    if (demands.empty()) return s;
    if (const auto unit = taken_unit_trees(g, demands, r.params.trees)) {
        OutTrees out(r, c, sites, g, level, r.params.segment, unit_tree_window(r.params.wan_window));
        for (const RootTrees& rt : unit->roots) out.add_source(rt.root, -1, data[static_cast<std::size_t>(rt.root)], rt, false);
        out.build();
        return s;
    }
    const auto plan = plan_trees(g, demands, with_trees({}, r.params.trees));
    OutTrees out(r, c, sites, g, level, r.params.segment, r.params.wan_window);
    // Shares by the rates the network will give the streams (achieved_rates), not the planned ones.
    for (const RootTrees& rt : with_achieved_rates(g, *plan, false))
        out.add_source(rt.root, -1, data[static_cast<std::size_t>(rt.root)], rt, false);  // from its forwarder
    out.build();
    return s;
}

}  // namespace gridcoll::detail
