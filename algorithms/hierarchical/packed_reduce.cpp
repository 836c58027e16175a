// Packed-trees reduce, reduce-scatter (block and irregular) and allreduce (gridcoll's, issue 33;
// the tree packing of packed_bcast.cpp turned round, after ForestColl, which packs the same trees
// for reduce-scatter and allreduce): every piece of the result is summed on its way along
// weighted in-trees over the sites, packed into the network with its links turned round, each
// site adding up its own members' contributions down a chain as the children's sums come in
// (in_trees.hpp).
//
//   reduce:          one destination, the root's site; the root's Out receives the total.
//   reduce-scatter:  every site a destination for its ranks' blocks, all packed together.
//   allreduce:       one shard per site (a site's forwarder owns it), summed into its site along
//                    trees and sent back out along the same trees (Way::Both, packing.hpp), the
//                    out-stream of a tree fed piece by piece by its in-stream: the reduce-scatter
//                    and the allgather (out_trees.hpp) at once, on both directions of the links,
//                    2 (C - 1) / C of the vector per site each way.
//
// Cost: as the mirrored broadcast or allgather — the throughput term of the trees, plus the
// deepest tree's latency, plus a piece's trip down the chain; allreduce: the shards' trees'
// throughput term once (both phases at once), the deepest tree's latency in and out.
// Where the links differ in speed or latency the allreduce's shares follow the rates the
// network's sharing gives each tree both ways at once (achieved_rates, packing.hpp).
// Commutative operations only (the sums meet in no fixed order). On a full mesh of uneven links
// the reduce-scatter's and the allreduce's trees are of one rate (unit_trees.hpp), where they fit
// and each carries at least a few pieces; else, on a full mesh (full_mesh), the packed allreduce
// is multitree's (seg=64K unless given): every shard on its own direct link.
// shards=cut (not the default) sizes the shards there to the sites' cuts (unit_shard_counts).
//
// References: [P000], [P001] (algorithms/REFERENCES.md; also its "Tree packing" part).
#include "../core/builders.hpp"
#include "../packing/in_trees.hpp"
#include "../packing/out_trees.hpp"
#include "../packing/unit_trees.hpp"
#include "compose.hpp"

namespace gridcoll::detail {

namespace {

struct Setup {
    int level;
    Sites sites;
    SiteGraph g;
    explicit Setup(const Request& r)
        : level(site_level(*r.topology, r.params.cluster_level)), sites(sites_at(*r.topology, level)),
          g(site_graph(*r.topology, sites, level)) {}
};

// In-trees for these destinations (each demand inward), at most `trees` a destination where given.
std::shared_ptr<const Packing> in_plan(const Setup& s, std::vector<Demand> d, int trees) {
    for (Demand& x : d) x.way = Way::In;
    return s.sites.count() > 1 ? plan_trees(s.g, d, with_trees({}, trees)) : nullptr;
}

const RootTrees& trees_for(const std::shared_ptr<const Packing>& plan, int site) {
    static const RootTrees none{0, 0, {}};
    if (!plan) return none;
    for (const RootTrees& rt : plan->roots)
        if (rt.root == site) return rt;
    return none;
}

// Links of more than one speed or latency: there the streams get what the network's sharing
// gives them (achieved_rates), not the planned rates, and their shares follow that.
bool uneven_links(const SiteGraph& g) {
    for (int l = 0; l < g.links(); ++l)
        if (g.cap[static_cast<std::size_t>(l)] != g.cap.front() || g.lat[static_cast<std::size_t>(l)] != g.lat.front()) return true;
    return false;
}

// The plan's trees per demand, with the rates the network gives them where its links are uneven.
std::vector<RootTrees> sized_trees(const SiteGraph& g, const std::shared_ptr<const Packing>& plan, bool back_into_root) {
    if (!plan) return {};
    return uneven_links(g) ? with_achieved_rates(g, *plan, back_into_root) : plan->roots;
}

}  // namespace

Schedule reduce_packed(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.bytes == 0 || r.size == 1) {
        if (r.bytes > 0) s.copy(Span{Buf::In, 0, r.bytes}, Span{Buf::Out, 0, r.bytes});
        return s;
    }
    const Setup st(r);
    Composer c(s);
    const int dst = st.sites.site_of[static_cast<std::size_t>(r.root)];
    const auto plan = in_plan(st, {{dst, static_cast<double>(r.bytes)}}, r.params.trees);
    InTrees in(r, c, st.sites, st.g, st.level, r.params.segment, r.params.wan_window, c.fresh_tmp(r.bytes), 0);
    in.add_destination(dst, {{Span{Buf::In, 0, r.bytes}, Span{Buf::Out, 0, r.bytes}, r.root}}, trees_for(plan, dst));
    in.build();
    return s;
}

Schedule reduce_scatter_packed(const Request& r) {
    Schedule s(r.rank, r.size);
    const Setup st(r);
    Composer c(s);
    const std::uint64_t total = block_offset(r, r.size);
    std::vector<Demand> demands;
    std::vector<std::vector<InPiece>> data(static_cast<std::size_t>(st.sites.count()));
    for (int site = 0; site < st.sites.count(); ++site) {
        double bytes = 0;
        for (int b : st.sites.members[static_cast<std::size_t>(site)])
            if (const std::uint64_t len = block_bytes(r, b); len > 0) {
                data[static_cast<std::size_t>(site)].push_back({Span{Buf::In, block_offset(r, b), len}, Span{Buf::Out, 0, len}, b});
                bytes += static_cast<double>(len);
            }
        if (bytes > 0) demands.push_back({site, bytes});
    }
    if (demands.empty()) return s;
    for (Demand& d : demands) d.way = Way::In;
    // A full mesh of uneven links: trees of one rate (unit_trees.hpp), else the packing's.
    const auto unit = taken_unit_trees(st.g, demands, r.params.trees);
    const auto plan = unit ? unit : in_plan(st, demands, r.params.trees);
    InTrees in(r, c, st.sites, st.g, st.level, r.params.segment, unit ? unit_tree_window(r.params.wan_window) : r.params.wan_window,
               c.fresh_tmp(total), 0);
    for (const Demand& d : demands)
        in.add_destination(d.root, data[static_cast<std::size_t>(d.root)], trees_for(plan, d.root));
    in.build();
    return s;
}

Schedule allreduce_packed(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.bytes == 0) return s;
    const Setup st(r);
    const int C = st.sites.count();
    // shards=cut, on a full mesh of uneven links: shards sized to the sites' cuts, the trees
    // planned on their exact proportions (the element-rounded lengths could tip a proportion over
    // a whole tree; cut_shard_demands). Else equal shards.
    const std::vector<Demand> cut = r.params.cut_shards && C > 1
                                        ? cut_shard_demands(st.g, static_cast<double>(r.bytes), unit_tree_count(r.params.trees, kUnitShardTrees))
                                        : std::vector<Demand>{};
    std::vector<double> weights;
    for (const Demand& d : cut) weights.push_back(d.bytes);
    const Shares shard(r.bytes, C, r.elem, weights);
    std::vector<Demand> demands;
    for (int t = 0; t < C; ++t)
        if (shard.length(t) > 0)
            demands.push_back(cut.empty() ? Demand{t, static_cast<double>(shard.length(t)), Way::Both} : cut[static_cast<std::size_t>(t)]);
    // A full mesh of uneven links: trees of one rate (unit_trees.hpp); of even links, or where
    // they do not fit: multitree's shards, each on its own direct links, sized to their speeds.
    const auto unit = C > 1 ? taken_unit_trees(st.g, demands, r.params.trees, kUnitShardTrees) : nullptr;
    if (full_mesh(st.g) && !unit) {
        Request direct = r;
        if (direct.params.segment == 0) direct.params.segment = 64 * 1024;
        return allreduce_multitree(direct);
    }
    const int win = unit ? unit_tree_window(r.params.wan_window) : r.params.wan_window;
    Composer c(s);
    InTrees in(r, c, st.sites, st.g, st.level, r.params.segment, win, c.fresh_tmp(r.bytes), 0);
    in.use_channels(0, kChannels / 2);  // the out-trees take the other half: no piece of one phase
                                        // waits behind the other's in a FIFO between two ranks
    // Trees of many rates: each carries kLeastBothPieces pieces, so that a thin one does not run
    // ahead of its rate (least_piece); trees of one rate keep theirs.
    const double pieces_a_tree = unit ? 0 : kLeastBothPieces;
    in.cut_pieces(pieces_a_tree);
    // Way::Both trees: each shard's sums come in along a tree and its total goes back out along
    // the same tree, at the same rate and in the same pieces, each piece as soon as its sum is
    // complete — the two phases at once, on the links' two directions.
    const std::vector<RootTrees> trees =
        unit ? unit->roots : C > 1 ? sized_trees(st.g, plan_trees(st.g, demands, with_trees(shard_pack_options(demands.front().bytes), r.params.trees)), true) : std::vector<RootTrees>{};
    const auto tree = [&trees](std::size_t i) -> const RootTrees& {
        static const RootTrees none{0, 0, {}};
        return trees.empty() ? none : trees[i];
    };
    for (std::size_t i = 0; i < demands.size(); ++i) {
        const Demand& d = demands[i];
        const Span piece{Buf::In, shard.offset(d.root), shard.length(d.root)};
        in.add_destination(d.root, {{piece, Span{Buf::Out, piece.off, piece.len}, in.forwarder(d.root)}}, tree(i));
    }
    in.build();
    OutTrees out(r, c, st.sites, st.g, st.level, r.params.segment, win);
    out.use_channels(kChannels / 2, kChannels / 2);
    out.cut_pieces(pieces_a_tree);
    for (std::size_t i = 0; i < demands.size(); ++i) {
        const Demand& d = demands[i];
        out.add_source(d.root, in.forwarder(d.root), {Span{Buf::Out, shard.offset(d.root), shard.length(d.root)}},
                       tree(i), true);
    }
    out.build();
    return s;
}

}  // namespace gridcoll::detail
