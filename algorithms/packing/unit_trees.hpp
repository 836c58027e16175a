// Trees of one rate (issue 33; after ForestColl, Zhao et al., "ForestColl: throughput-optimal
// collective communications on heterogeneous network fabrics", arXiv 2402.06787, 2024): every
// source site spreads its bytes along k_s spanning trees that all carry the same rate u, packed
// exactly into the links between neighbouring sites, a link of capacity c holding floor(c / u)
// of them.
//
// Why one rate: SimGrid, like TCP, gives every message on a link the same share (its weight
// depends only on the route's latency), not the share a plan gave its tree. With trees of one
// rate the shares the network hands out are the planned ones, and a link's two directions carry
// as many streams as their loads ask for (SimGrid ties the two directions' shares together).
// docs/design/tree-packing.md, "Trees of one rate", has the measurements.
//
// The packing: add a super-source s with k_s arcs to each source site; then the k = sum k_s
// arborescences from s that pack into the graph (Edmonds' branching theorem: they exist iff every
// site is reached from s by k arc-disjoint paths) each use exactly one arc out of s, so each is a
// spanning tree of one source. They are grown one arc at a time, each arc kept only where the
// rest can still be packed (Lovász's proof of Edmonds' theorem, "On two minimax theorems in
// graph", J. Combin. Theory B 21, 1976; [Lovasz76] in algorithms/REFERENCES.md), checked by
// max-flows. Cost: for k trees over n sites, about k n^2 max-flows on n + 1 vertices; n <= 16
// only (the max-flows' count grows too fast beyond).
//
// Internal to algorithms/.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "packing.hpp"

namespace gridcoll::detail {

// Arcs that join two neighbouring sites: a -> b where the route from a to b is one link.
struct SiteArc {
    int from, to, link;
};
std::vector<SiteArc> direct_arcs(const SiteGraph& g);

// The spanning trees of one rate for the demands (all of one way, every root distinct; In: the
// out-trees of the network turned round; Both: each link's two directions halved, so that a tree
// edge's way in and way out both fit), at most `max_trees` (>= 1) for the root with the most
// bytes and proportionally fewer for the others; the least time (a binary search on the rate)
// within `slack` of what no packing on the direct arcs beats (a site's cut, all bytes over all
// arcs); of the counts, the fewest trees whose time is within 2 % of the least. Every tree's
// rate is u. None where the sites are more than 16, a site has no direct arc in or out, or no
// count fits within the slack.
std::optional<Packing> unit_trees(const SiteGraph& g, const std::vector<Demand>& demands, int max_trees, double slack = 1.5);

// The same, cached per graph and demands' proportions (every rank of a job plans once per
// process); nullptr where there is none.
std::shared_ptr<const Packing> plan_unit_trees(const SiteGraph& g, const std::vector<Demand>& demands, int max_trees);

// The most trees a source (the method key trees=N, else kUnitTrees; the broadcast's and
// the allreduce's defaults below) and the WAN receives a stream keeps
// posted (the key win=N, at least 8) for trees of one rate. Thin streams of one rate want more
// pieces in flight than the packing's weighted trees (mixed-wan-5x16 under SMPI, allgather of
// 64 KiB a rank with a window of 2 / 4 / 8 / 12 / 16: 0.914 / 0.840 / 0.802 / 0.796 / 0.789 s;
// allreduce of 4 MiB, 2 / 4 / 8 / 12: 1.443 / 1.338 / 1.283 / 1.286 s).
constexpr int kUnitTrees = 4;
int unit_tree_count(int trees, int most_by_default = kUnitTrees);
int unit_tree_window(int win);

// Where the packed methods take them: on a full mesh of uneven links (elsewhere the weighted
// packing, or on even links the direct methods, served better; docs/design/tree-packing.md),
// with unit_tree_count(trees, most_by_default) at most a source; nullptr elsewhere or where
// plan_unit_trees has none.
std::shared_ptr<const Packing> taken_unit_trees(const SiteGraph& g, const std::vector<Demand>& demands, int trees,
                                                int most_by_default = kUnitTrees);

// The broadcast's (a source alone): on a full mesh of uneven links, up to unit_tree_count(trees,
// kUnitBcastTrees) trees of one rate where together they carry at least kUnitBcastGain times
// what wanstream's two-hop shares can (each share at the least of its links; two_hop_rate);
// nullptr elsewhere, and there the packed broadcast runs wanstream. A lone source wants many
// thin trees (its cut is made of many slow links), so more than the four of the allgather's.
// Each tree carries at least kUnitBcastTreeBytes, else wanstream does (umesh8, nine trees, SMPI:
// 320 KiB 0.122 s against wanstream's 0.115 s, 512 KiB 0.153 / 0.155 s, 1 MiB 0.234 / 0.255 s).
// Measurements: docs/design/tree-packing.md, "Trees of one rate for the broadcast".
constexpr int kUnitBcastTrees = 32;
constexpr double kUnitBcastTreeBytes = 48.0 * 1024;
constexpr double kUnitBcastGain = 1.15;
double two_hop_rate(const SiteGraph& g, int root);
std::shared_ptr<const Packing> taken_unit_bcast_trees(const SiteGraph& g, int root, double bytes, int trees);

// The allreduce's shards (Way::Both) take up to six a source: on umesh8 (random_wan_graphs.py)
// 4 MiB under SMPI with four / six / eight / twelve 1.123 / 1.060 / 1.060 / 1.096 s; umesh12,
// umesh16 and mixed-wan-5x16 pick the same trees with four or six.
constexpr int kUnitShardTrees = 6;

// The allreduce's shards on trees of one rate, sized to the network (a count of trees a site, the
// shards in proportion to them): the allgather of shards s_v over the sites takes at least
// max over site sets X of s(outside X) / capacity into X, and the reduce-scatter the same turned
// round (Edmonds' branching theorem on a super-source), so equal shards wait on the site with the
// least capacity in. Shards s_v = 1 - T c_v (c_v: the capacity into site v, T = (n - 1) / all
// capacity) meet every single-site cut at once: a site with less capacity owns more of the
// vector and takes in less of the others'. Rounded to whole trees (at most `max_trees` for the
// largest shard, at least one a site) and compared with equal counts by the time unit_trees
// fits; the fewest trees within 2 % of the least. Empty where unit_trees has no plan for them and
// where the sites are not a full mesh of uneven links (there the trees are not of one rate).
std::vector<double> unit_shard_counts(const SiteGraph& g, int max_trees);
// The allreduce's Way::Both demands of `bytes` in shards of those proportions (exact, not rounded
// to elements); empty where unit_shard_counts is.
std::vector<Demand> cut_shard_demands(const SiteGraph& g, double bytes, int max_trees);

}  // namespace gridcoll::detail
