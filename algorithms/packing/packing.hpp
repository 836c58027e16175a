// Tree packing between sites (issue 33; after ForestColl and Blink's spanning-tree packing, on
// the sites of a cluster of clusters): weighted arborescences over the sites that together carry
// as many bytes per second as the sites' network allows, each tree edge riding the platform's
// route between its two sites (routes that share a link share its capacity), and the bounds they
// are measured against.
//
// The packing is Garg and Könemann's multiplicative-weights method for (concurrent) fractional
// packing ("Faster and simpler algorithms for multicommodity flow and other fractional packing
// problems", FOCS 1998), with the least-cost arborescence (Chu-Liu / Edmonds) as its oracle: each
// link has a length that grows with the flow through it, and every round routes more flow along
// the tree that is cheapest under the current lengths. A commodity is one site with the bytes it
// must spread to every other (a broadcast: one; an allgather: every site), gather from every
// other (a reduction's in-trees), or both along the same trees (an allreduce's shards). The result is
// scaled to fit every link, merged, pruned to the few trees that carry almost all of it, and
// rescaled.
//
// Internal to algorithms/.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "site_graph.hpp"

namespace gridcoll::detail {

// Which way a tree's data flows between its root and the other sites.
enum class Way : std::uint8_t {
    Out,   // from the root to every other site (broadcast, allgather)
    In,    // from every other site into the root (a reduction's in-trees: each edge rides the
           // route from child to parent; parent[v] is where v's sums go)
    Both,  // in and back out along the same tree, at one rate (an allreduce's shard: its sums
           // come in, its total goes back out as each piece is complete)
};

struct SiteTree {
    std::vector<int> parent;  // per site; -1 at the root
    double rate = 0;          // bytes per second it carries

    int root() const;
    std::vector<int> children(int site) const;
    // Sites in an order where every parent comes before its children (the root first).
    std::vector<int> top_down() const;
    // The largest sum of edge latencies (edge_latency) between the root and a site along the tree.
    double depth_latency(const SiteGraph& g, Way w = Way::Out) const;
};

struct Demand {
    int root;           // source site
    double bytes;       // what it spreads to every other site
    Way way = Way::Out;  // ... or gathers, or both
};

struct RootTrees {
    int root;
    double bytes;
    std::vector<SiteTree> trees;
    Way way = Way::Out;  // as the demand's
    double rate() const;  // their sum
};

// Calls f(link) for every link tree edge parent -> child rides (a link twice if it is on the route
// twice): its route out, the child's route back to the parent in, both for Both.
template <class F>
void for_edge_links(const SiteGraph& g, int parent, int child, Way w, F&& f) {
    if (w != Way::In)
        for (int l : g.route(parent, child)) f(l);
    if (w != Way::Out)
        for (int l : g.route(child, parent)) f(l);
}
// Its latency: the one way's, or for Both the two ways' sum (a piece comes in and goes back out).
inline double edge_latency(const SiteGraph& g, int parent, int child, Way w) {
    return (w != Way::In ? g.latency(parent, child) : 0.0) + (w != Way::Out ? g.latency(child, parent) : 0.0);
}

struct Packing {
    std::vector<RootTrees> roots;  // one per demand, in the demands' order
    // Predicted time: the slowest root's bytes over its rate, plus the deepest tree's latency.
    double seconds(const SiteGraph& g) const;
};

struct PackOptions {
    double epsilon = 0.1;      // the multiplicative-weights step
    int max_trees = 8;         // kept per root
    double keep = 0.98;        // ... or fewer, once they carry this share of the root's flow
    double seconds_budget = 0.5;
};

// `o` with at most `trees` trees kept per root where that is given (> 0): the packed methods' key
// trees (MethodParams::trees).
inline PackOptions with_trees(PackOptions o, int trees) {
    if (trees > 0) o.max_trees = trees;
    return o;
}

// The allreduce's packing of Way::Both shards of `bytes`: trees of eight least pieces each at the
// least (1 to 4 trees a shard). Each tree's stream pays its pipeline, a piece's time at the tree's
// rate at every hop in and back out, and many slow trees make that long: pmesh-6x16 under SMPI,
// 4 MiB (700 KB shards) 3.17 / 2.97 / 2.88 / 3.06 s with 8 / 6 / 4 / 2 trees a shard; 1 MiB
// 1.14 / 0.99 / 1.23 s with 4 / 2 / 1; 256 KiB 0.56 / 0.43 / 0.42 s with 4 / 2 / 1.
PackOptions shard_pack_options(double bytes);

// The concurrent packing for the demands (at least one; out-demands of distinct roots, in-demands
// of distinct roots): out- and in-trees packed together share every link's two directions, so an
// allreduce's reduce-scatter and allgather can run at once.
Packing pack_trees(const SiteGraph& g, const std::vector<Demand>& demands, const PackOptions& o = {});

// One tree per demand: the tree of least route latency from its root (Dijkstra over the
// routes' latencies), at the rate the network allows them all at once. Small messages.
Packing latency_trees(const SiteGraph& g, const std::vector<Demand>& demands);

// The tree of least route latency from `root` whose edges are the routes' hops between sites:
// a site's parent is the last site its route from the root crosses (rate 0: not worked out).
SiteTree forwarding_tree(const SiteGraph& g, int root);

// Which of the two takes less time for these demands (a packing of small messages is no faster
// than its deepest tree), for one root at the rates achieved_rates says the network gives their
// streams (else at the planned rates): pack_trees, or latency_trees where that is faster. Cached per graph,
// demands and options: every rank of a job (and of a simulation) plans once per process.
std::shared_ptr<const Packing> plan_trees(const SiteGraph& g, const std::vector<Demand>& demands, const PackOptions& o = {});

// The rates the trees' streams get at once from a network that shares each link among the
// messages on it as TCP and SimGrid's CM02 do — max-min fair with weights 1 / route latency, so a
// tree edge of a long route gets less of a link than one of a short route — each stream no
// faster than its slowest edge. [root][tree]; `back_into_root`: each out-tree also sends back
// into its root's site from its nearest child (the broadcast's return).
std::vector<std::vector<double>> achieved_rates(const SiteGraph& g, const std::vector<RootTrees>& roots, bool back_into_root);
// The plan's trees with those rates: the shares a stream gets are then what the network will
// give it, so the streams of long routes do not finish late.
std::vector<RootTrees> with_achieved_rates(const SiteGraph& g, const Packing& plan, bool back_into_root);

// The same network with every link turned round: what data flowing towards a root (a reduction)
// meets where a broadcast meets g. A packing on it gives the reductions' in-trees: parent[v] is
// where v's sums go.
SiteGraph reversed(SiteGraph g);

// Bounds (issue 33's definitions), bytes per second or seconds:
//   broadcast from `root`: the smallest max-flow from the root to another site;
double bcast_rate_bound(const SiteGraph& g, int root);
//   every site s spreading bytes[s] to every other (allgather; reduce-scatter mirrored): the
//   larger of the worst cut (the bytes one side must send across over the cut's capacity, every
//   set of sites when there are at most 16, else every single site and its complement) and
//   the total (every byte reaches n - 1 sites: n - 1 link crossings at least) over all the
//   capacity;
double spread_time_bound(const SiteGraph& g, const std::vector<double>& bytes);
//   allreduce of `bytes`: both directions of the cut between a site and the rest carry the
//   vector at least once, and the total is 2 (n - 1) vectors over all the capacity;
double allreduce_time_bound(const SiteGraph& g, double bytes);
//   the deepest least-latency path from the root (broadcast), or between any two sites.
double deepest_latency(const SiteGraph& g, int root = -1);

}  // namespace gridcoll::detail
