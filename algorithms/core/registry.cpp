#include "gridcoll/algorithms/registry.hpp"

#include <iterator>

#include "builders.hpp"
#include "engines.hpp"

namespace gridcoll {

namespace {

using C = Collective;
using namespace detail;

// One-level algorithms of the nine collectives but allreduce and scan (paper 002 and the classics).
std::vector<Algorithm> flat_algorithms() {
    return {
        // Broadcast (paper 002 Table 2; k-ary/k-chain: paper 002 §4.1, paper 000 §3).
        {.coll = C::Bcast, .name = "linear", .build = bcast_linear, .segmented = true,
         .description = "flat tree: root sends to every rank (002)"},
        {.coll = C::Bcast, .name = "pipeline", .build = bcast_pipeline, .segmented = true,
         .description = "single chain, segments pipelined (002)"},
        {.coll = C::Bcast, .name = "binomial", .build = bcast_binomial, .segmented = true,
         .description = "binomial tree, largest subtree first (002, MPICH)"},
        {.coll = C::Bcast, .name = "binary", .build = bcast_binary, .segmented = true,
         .description = "binary tree (002)"},
        {.coll = C::Bcast, .name = "splitted-binary", .build = bcast_splitted_binary, .segmented = true,
         .description = "halves down two binary subtrees, then pairwise swap (002)"},
        {.coll = C::Bcast, .name = "kary", .build = bcast_kary, .segmented = true, .uses_fanout = true,
         .description = "k-ary tree of fan-out k, MagPIe's d-ary tree (000, 002)"},
        {.coll = C::Bcast, .name = "kchain", .build = bcast_kchain, .segmented = true, .uses_fanout = true,
         .description = "k pipelines hanging off the root (002)"},
        // Reduce (paper 002 Table 3).
        {.coll = C::Reduce, .name = "flat", .build = reduce_flat, .segmented = true,
         .description = "root receives and combines every rank's data (002)"},
        {.coll = C::Reduce, .name = "pipeline", .build = reduce_pipeline, .segmented = true,
         .description = "single chain towards the root (002)"},
        {.coll = C::Reduce, .name = "binomial", .build = reduce_binomial, .segmented = true,
         .description = "binomial tree (002, MPICH)"},
        {.coll = C::Reduce, .name = "binary", .build = reduce_binary, .segmented = true, .keeps_order = false,
         .description = "binary tree; commutative operations only (002)"},
        {.coll = C::Reduce, .name = "kchain", .build = reduce_kchain, .segmented = true, .uses_fanout = true,
         .description = "k chains towards the root (002)"},
        // Barrier.
        {.coll = C::Barrier, .name = "flat", .build = barrier_flat,
         .description = "flat fan-in to rank 0, then fan-out (002)"},
        {.coll = C::Barrier, .name = "double-ring", .build = barrier_double_ring,
         .description = "a token travels the ring twice (002)"},
        {.coll = C::Barrier, .name = "recursive-doubling", .build = barrier_recursive_doubling,
         .description = "pairwise exchanges with rank XOR 2^k, non-powers of two folded (002)"},
        {.coll = C::Barrier, .name = "bruck", .build = barrier_bruck,
         .description = "dissemination: send to r+2^k, receive from r-2^k (002, Bruck)"},
        {.coll = C::Barrier, .name = "direct", .build = barrier_direct,
         .description = "one round: every rank to every other (MagPIe's, among few ranks on slow links)"},
        // Alltoall.
        {.coll = C::Alltoall, .name = "linear", .build = alltoall_linear, .segmented = true,
         .description = "every rank sends every block directly, segmented (002)"},
        {.coll = C::Alltoall, .name = "pairwise", .build = alltoall_pairwise,
         .description = "step i: send to r+i, receive from r-i (002)"},
        {.coll = C::Alltoall, .name = "bruck", .build = alltoall_bruck,
         .description = "log2 P rounds of packed blocks (Bruck et al.)"},
        // Scatter.
        {.coll = C::Scatter, .name = "linear", .build = scatter_linear, .segmented = true,
         .description = "root sends each rank its block (003, MPICH)"},
        {.coll = C::Scatter, .name = "binomial", .build = scatter_binomial,
         .description = "binomial tree carrying whole subtrees' blocks (MPICH)"},
        // Gather.
        {.coll = C::Gather, .name = "linear", .build = gather_linear, .segmented = true,
         .description = "every rank sends its block to the root (003, MPICH)"},
        {.coll = C::Gather, .name = "binomial", .build = gather_binomial,
         .description = "binomial tree collecting subtrees' blocks (MPICH)"},
        // Allgather.
        {.coll = C::Allgather, .name = "ring", .build = allgather_ring,
         .description = "P-1 steps around a ring (MPICH)"},
        {.coll = C::Allgather, .name = "recursive-doubling", .build = allgather_recursive_doubling,
         .description = "exchanges with rank XOR 2^k, doubling the data (MPICH)"},
        {.coll = C::Allgather, .name = "bruck", .build = allgather_bruck,
         .description = "ceil(log2 P) rounds to r-2^k (Bruck et al.)"},
    };
}

// One-level allreduce and scan algorithms.
std::vector<Algorithm> flat_allreduce_and_scan() {
    return {
        // Allreduce.
        {.coll = C::Allreduce, .name = "reduce-bcast", .build = allreduce_reduce_bcast, .segmented = true,
         .description = "binomial reduce to rank 0, then binomial broadcast (002 style composition)"},
        {.coll = C::Allreduce, .name = "recursive-doubling", .build = allreduce_recursive_doubling,
         .description = "exchange-and-combine with rank XOR 2^k (MPICH)"},
        {.coll = C::Allreduce, .name = "ring", .build = allreduce_ring, .keeps_order = false,
         .description = "reduce-scatter then allgather around a ring (Patarasuk-Yuan, Rabenseifner)"},
        {.coll = C::Allreduce, .name = "direct", .build = allreduce_direct,
         .description = "one round: every vector to every rank, each combines all in rank order (MagPIe's)"},
        // Scan.
        {.coll = C::Scan, .name = "linear", .build = scan_linear, .segmented = true,
         .description = "rank r receives the prefix from r-1, combines, forwards (MPICH)"},
        {.coll = C::Scan, .name = "recursive-doubling", .build = scan_recursive_doubling,
         .description = "log2 P rounds of partial prefixes (Hillis-Steele, MPICH)"},
    };
}

// The collectives MPI added beyond the nine: reduce-scatter, exscan and the v-variants, flat
// and by site leaders (MagPIe's shape, leaders_*.cpp).
std::vector<Algorithm> more_collectives() {
    std::vector<Algorithm> v;
    for (C c : {C::ReduceScatter, C::ReduceScatterBlock}) {
        v.push_back({.coll = c, .name = "pairwise", .build = reduce_scatter_pairwise,
                      .description = "step i: contribution to r+i, from r-i; combined in rank order (MPICH)"});
        v.push_back({.coll = c, .name = "ring", .build = reduce_scatter_ring, .keeps_order = false,
                      .description = "P-1 steps around a ring, adding as it goes (Patarasuk-Yuan)"});
        v.push_back({.coll = c, .name = "reduce-scatterv", .build = reduce_scatter_reduce_scatterv,
                      .description = "binomial reduce of the vector to rank 0, then linear scatter (MPICH)"});
        v.push_back({.coll = c, .name = "leaders", .build = reduce_scatter_leaders, .segmented = true, .keeps_order = false,
                      .needs_topology = true,
                      .description = "sites reduce at leaders; each leader sends each site only its blocks (one WAN latency, WAN bound) (MagPIe)"});
        v.push_back({.coll = c, .name = "paired", .build = reduce_scatter_paired, .keeps_order = false, .needs_topology = true,
                      .description = "ring reduce-scatter by columns in sites, rank j to rank j of every site over the WAN "
                                     "(every rank a leader; cut bound) (MagPIe, Patarasuk-Yuan)"});
    }
    v.push_back({.coll = C::Exscan, .name = "linear", .build = exscan_linear, .segmented = true,
                 .description = "rank r receives the prefix of 0..r-1, adds its own, forwards (MPICH)"});
    v.push_back({.coll = C::Exscan, .name = "recursive-doubling", .build = exscan_recursive_doubling,
                 .description = "log2 P rounds of partial prefixes (Hillis-Steele, MPICH)"});
    v.push_back({.coll = C::Exscan, .name = "leaders", .build = exscan_leaders, .needs_topology = true,
                 .description = "exscan in sites, each site's total straight to every later site (one WAN latency) (MagPIe)"});
    v.push_back({.coll = C::Exscan, .name = "coleaders", .build = exscan_coleaders, .uses_fanout = true, .needs_topology = true,
                 .description = "leaders' direct exscan, each site's WAN messages spread over k ranks: (C-1)/k a node (MagPIe)"});
    v.push_back({.coll = C::Allgatherv, .name = "ring", .build = allgatherv_ring,
                 .description = "P-1 steps around a ring (MPICH)"});
    v.push_back({.coll = C::Allgatherv, .name = "direct", .build = allgatherv_direct,
                 .description = "one round: every block straight to every rank (MagPIe's)"});
    v.push_back({.coll = C::Allgatherv, .name = "leaders", .build = allgather_leaders, .segmented = true, .needs_topology = true,
                 .description = "blocks to site leaders, leaders swap sites' blocks directly (one WAN latency), binomial down (MagPIe)"});
    v.push_back({.coll = C::Gatherv, .name = "linear", .build = gatherv_linear,
                 .description = "every rank sends its block to the root (MPICH, Open MPI)"});
    v.push_back({.coll = C::Gatherv, .name = "leaders", .build = gatherv_leaders, .needs_topology = true,
                 .needs_all_counts = true,
                 .description = "blocks to site leaders, one WAN message per site to the root (MagPIe)"});
    v.push_back({.coll = C::Scatterv, .name = "linear", .build = scatterv_linear,
                 .description = "the root sends every rank its block (MPICH, Open MPI)"});
    v.push_back({.coll = C::Scatterv, .name = "leaders", .build = scatterv_leaders, .needs_topology = true,
                 .needs_all_counts = true,
                 .description = "one WAN message per site from the root to its leader, then to the ranks (MagPIe)"});
    v.push_back({.coll = C::Alltoallv, .name = "linear", .build = alltoallv_linear,
                 .description = "every block sent directly, all at once (Open MPI basic)"});
    v.push_back({.coll = C::Alltoallv, .name = "pairwise", .build = alltoallv_pairwise,
                 .description = "step i: send to r+i, receive from r-i (Open MPI tuned)"});
    for (C c : {C::Alltoall, C::Alltoallv})
        v.push_back({.coll = c, .name = "paired", .build = c == C::Alltoall ? alltoall_paired : alltoallv_paired,
                     .needs_topology = true, .needs_all_counts = c == C::Alltoallv,
                     .description = "blocks regrouped by column in sites, rank j to rank j of every site over the WAN "
                                    "(one aggregated WAN message per site pair and column) (MagPIe, Traeff)"});
    return v;
}

// Streams along weighted trees packed into the sites' network, any WAN graph (issue 33;
// algorithms/packing/, hierarchical/packed_*.cpp).
std::vector<Algorithm> packed_algorithms() {
    std::vector<Algorithm> v;
    const auto add = [&v](C c, Schedule (*build)(const Request&), const char* what) {
        v.push_back({.coll = c, .name = "packed", .build = build, .segmented = true, .uses_cluster_level = true,
                     .uses_wan_window = true, .uses_trees = true, .needs_topology = true, .description = what});
    };
    add(C::Bcast, bcast_packed, "shares streamed along weighted trees packed into the sites' network (any WAN graph), "
                                "in-site chains (gridcoll; ForestColl, Blink)");
    for (C c : {C::Allgather, C::Allgatherv})
        add(c, allgather_packed, "in-site ring, then every site's blocks along its own packed trees, all at once "
                                 "(any WAN graph) (gridcoll; ForestColl)");
    add(C::Reduce, reduce_packed, "shares summed along weighted in-trees packed into the network turned round, "
                                  "in-site chains adding as they go (any WAN graph) (gridcoll; ForestColl)");
    for (C c : {C::ReduceScatter, C::ReduceScatterBlock})
        add(c, reduce_scatter_packed, "every site's blocks summed along its own packed in-trees, all at once "
                                      "(any WAN graph) (gridcoll; ForestColl)");
    add(C::Allreduce, allreduce_packed, "packed reduce-scatter into a shard per site, then each shard along its "
                                        "site's packed trees (any WAN graph) (gridcoll; ForestColl)");
    for (Algorithm& a : v) {
        if (is_reduction(a.coll)) a.keeps_order = false;
        a.uses_runs = a.coll == C::Bcast;
        a.uses_cut_shards = a.coll == C::Allreduce;
    }
    return v;
}

// Topology-aware algorithms (follow Request::topology; algorithms/hierarchical/).
std::vector<Algorithm> hierarchical_algorithms() {
    return {
        // Hierarchical (follow Request::topology; algorithms/hierarchical/).
        {.coll = C::Bcast, .name = "multilevel", .build = bcast_multilevel, .segmented = true, .uses_levels = true,
         .needs_topology = true, .description = "level by level over masters, any depth, method per level, pipelined (001)"},
        {.coll = C::Reduce, .name = "multilevel", .build = reduce_multilevel, .segmented = true, .uses_levels = true,
         .keeps_order = false, .needs_topology = true,
         .description = "level by level towards the root, method per level, pipelined (001)"},
        {.coll = C::Barrier, .name = "multilevel", .build = barrier_multilevel, .uses_levels = true,
         .needs_topology = true, .description = "each level's barrier, deepest first, then a release (001)"},
        {.coll = C::Allreduce, .name = "multilevel", .build = allreduce_multilevel, .segmented = true, .uses_levels = true,
         .keeps_order = false, .needs_topology = true,
         .description = "reduce up the levels, [top] allreduce among top masters, broadcast down (001, HAN)"},
        {.coll = C::Scatter, .name = "multilevel", .build = scatter_multilevel, .segmented = true, .needs_topology = true,
         .description = "level by level over masters, each part's blocks in pieces of seg (64 KiB) passed on as they arrive (001)"},
        {.coll = C::Gather, .name = "multilevel", .build = gather_multilevel, .segmented = true, .needs_topology = true,
         .description = "level by level towards the root, each part's blocks in pieces of seg (64 KiB) passed on as they arrive (001)"},
        {.coll = C::Allgather, .name = "multilevel", .build = allgather_multilevel, .segmented = true,
         .needs_topology = true, .description = "multilevel gather to rank 0, then multilevel broadcast of all blocks (001)"},
        {.coll = C::Scatter, .name = "magpie", .build = scatter_magpie, .uses_cluster_level = true, .needs_topology = true,
         .description = "MagPIe original: each coordinator's blocks over the WAN, then flat in clusters (000)"},
        {.coll = C::Gather, .name = "magpie", .build = gather_magpie, .uses_cluster_level = true, .needs_topology = true,
         .description = "MagPIe original: flat in clusters, then each cluster's blocks over the WAN (000)"},
        {.coll = C::Bcast, .name = "magpie", .build = bcast_magpie, .uses_cluster_level = true, .needs_topology = true,
         .description = "MagPIe original: flat WAN tree to coordinators, then binomial in clusters (000)"},
        {.coll = C::Reduce, .name = "magpie", .build = reduce_magpie, .uses_cluster_level = true, .keeps_order = false,
         .needs_topology = true, .description = "MagPIe original: binomial in clusters, then flat over the WAN (000)"},
        {.coll = C::Barrier, .name = "magpie", .build = barrier_magpie, .uses_cluster_level = true,
         .needs_topology = true, .description = "MagPIe original: flat in clusters, flat among coordinators (000)"},
        {.coll = C::Allreduce, .name = "magpie", .build = allreduce_magpie, .uses_cluster_level = true,
         .keeps_order = false, .needs_topology = true, .description = "MagPIe original: two-layer reduce + broadcast (000)"},
        {.coll = C::Bcast, .name = "eco", .build = bcast_eco, .uses_fanout = true, .uses_cluster_level = true,
         .needs_topology = true, .description = "ECO: star of subnets from the originator, k-ary trees inside (003)"},
        {.coll = C::Reduce, .name = "eco", .build = reduce_eco, .uses_cluster_level = true, .keeps_order = false,
         .needs_topology = true, .description = "ECO: binary trees in subnets, flat among representatives (003)"},
        {.coll = C::Scatter, .name = "eco", .build = scatter_eco, .uses_cluster_level = true, .needs_topology = true,
         .description = "ECO: each subnet's blocks from the originator to its representative, flat inside (003)"},
        {.coll = C::Gather, .name = "eco", .build = gather_eco, .uses_cluster_level = true, .needs_topology = true,
         .description = "ECO: flat to each subnet's representative, its blocks to the root in one message (003)"},
        {.coll = C::Alltoall, .name = "eco", .build = alltoall_eco, .uses_cluster_level = true, .needs_topology = true,
         .description = "ECO: all rows gathered to rank 0 along the subnet tree, transposed, scattered (003)"},
        {.coll = C::Scan, .name = "eco", .build = scan_eco, .uses_cluster_level = true, .needs_topology = true,
         .description = "ECO: inputs gathered to rank 0 along the subnet tree, prefixes there, scattered (003)"},
        {.coll = C::Allgather, .name = "eco", .build = allgather_eco, .uses_cluster_level = true, .needs_topology = true,
         .description = "ECO ring order: the ring over the ranks subnet by subnet (003)"},
        {.coll = C::Allreduce, .name = "eco", .build = allreduce_eco, .uses_cluster_level = true,
         .keeps_order = false, .needs_topology = true,
         .description = "ECO ring order: reduce-scatter + allgather ring, subnet by subnet (003)"},
        {.coll = C::Barrier, .name = "eco", .build = barrier_eco, .uses_cluster_level = true, .needs_topology = true,
         .description = "ECO: flat in subnets, flat among representatives, release (003)"},
        {.coll = C::Bcast, .name = "twolayer", .build = bcast_twolayer, .segmented = true, .uses_levels = true,
         .uses_cluster_level = true, .needs_topology = true,
         .description = "P-LogP pipelined two-layer: [WAN tree|LAN tree] of segments (000)"},
        {.coll = C::Bcast, .name = "multitree", .build = bcast_multitree, .segmented = true, .uses_fanout = true,
         .uses_cluster_level = true, .uses_wan_window = true, .uses_shares = true, .needs_topology = true,
         .description = "a share per site over C-1 two-hop WAN trees at once, k-ary trees in sites (gridcoll)"},
        {.coll = C::Bcast, .name = "wanstream", .build = bcast_wanstream, .segmented = true, .uses_cluster_level = true,
         .uses_wan_window = true, .uses_shares = true, .needs_topology = true,
         .description = "multi-tree with receiver-paced WAN streams; a sink and a forwarder per site, in-site chains (gridcoll)"},
        {.coll = C::Allreduce, .name = "multitree", .build = allreduce_multitree, .segmented = true,
         .uses_cluster_level = true, .uses_wan_window = true, .uses_shares = true, .keeps_order = false,
         .needs_topology = true,
         .description = "site-level reduce-scatter + allgather on every WAN link, in-site chains (gridcoll)"},
    };
}

// The site leaders' latency-optimal methods (one WAN step; algorithms/hierarchical/leaders*.cpp,
// coleaders.cpp).
std::vector<Algorithm> leaders_algorithms() {
    return {
        {.coll = C::Barrier, .name = "leaders", .build = barrier_leaders, .needs_topology = true,
         .description = "in-site barriers, site leaders' direct barrier (one WAN latency), in-site releases (MagPIe)"},
        {.coll = C::Bcast, .name = "leaders", .build = bcast_leaders, .needs_topology = true,
         .description = "the root straight to every site leader (one WAN latency), binomial in sites (MagPIe)"},
        {.coll = C::Bcast, .name = "coleaders", .build = bcast_coleaders, .uses_fanout = true, .needs_topology = true,
         .description = "the root's site's k leaders straight to every site leader, (C-1)/k a node (one WAN latency), binomial in sites (MagPIe)"},
        {.coll = C::Reduce, .name = "leaders", .build = reduce_leaders, .keeps_order = false, .needs_topology = true,
         .description = "binomial in sites, every site leader straight to the root (one WAN latency) (MagPIe)"},
        {.coll = C::Reduce, .name = "coleaders", .build = reduce_coleaders, .uses_fanout = true, .keeps_order = false, .needs_topology = true,
         .description = "binomial in sites, every site leader straight to one of the root's site's k leaders, (C-1)/k a node (MagPIe)"},
        {.coll = C::Allreduce, .name = "leaders", .build = allreduce_leaders, .keeps_order = false, .needs_topology = true,
         .description = "binomial in sites, site leaders' direct allreduce (one WAN latency), binomial down (MagPIe)"},
        {.coll = C::Allreduce, .name = "coleaders", .build = allreduce_coleaders, .uses_fanout = true, .keeps_order = false, .needs_topology = true,
         .description = "leaders' direct allreduce, each site's WAN messages spread over k ranks: (C-1)/k a node (MagPIe)"},
        {.coll = C::Allgather, .name = "leaders", .build = allgather_leaders, .segmented = true, .needs_topology = true,
         .description = "blocks to site leaders, leaders swap sites' blocks directly (one WAN latency), binomial down; "
                        "seg=: streamed, WAN and LAN overlapped (MagPIe)"},
        {.coll = C::Allgather, .name = "coleaders", .build = allgather_coleaders, .uses_fanout = true, .needs_topology = true,
         .description = "leaders' direct allgather, each site's WAN messages spread over k ranks: (C-1)/k a node (MagPIe)"},
        {.coll = C::Scan, .name = "leaders", .build = scan_leaders, .needs_topology = true,
         .description = "scan in sites, each site's total straight to every later site (one WAN latency), binomial down (MagPIe)"},
        {.coll = C::Scan, .name = "coleaders", .build = scan_coleaders, .uses_fanout = true, .needs_topology = true,
         .description = "leaders' direct scan, each site's WAN messages spread over k ranks: (C-1)/k a node (MagPIe)"},
    };
}

}  // namespace

const std::vector<Algorithm>& all_algorithms() {
    static const std::vector<Algorithm> table = [] {
        std::vector<Algorithm> all;
        for (auto part : {flat_algorithms(), flat_allreduce_and_scan(), hierarchical_algorithms(), leaders_algorithms(),
                          more_collectives(), packed_algorithms()})
            all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
        return all;
    }();
    return table;
}

std::vector<const Algorithm*> algorithms_for(Collective c) {
    std::vector<const Algorithm*> v;
    for (const auto& a : all_algorithms())
        if (a.coll == c) v.push_back(&a);
    return v;
}

const Algorithm& find_algorithm(Collective c, std::string_view name) {
    std::string valid;
    for (const Algorithm* a : algorithms_for(c)) {
        if (a->name == name) return *a;
        valid += (valid.empty() ? "" : ", ") + a->name;
    }
    throw Error("unknown " + std::string(to_string(c)) + " algorithm '" + std::string(name) + "' (valid: " + valid +
                ")");
}

Schedule build_schedule(const Request& r, std::string_view algorithm) {
    validate(r);
    const Algorithm& a = find_algorithm(r.coll, algorithm);
    if (a.needs_topology && r.topology == nullptr)
        throw Error(std::string(to_string(r.coll)) + " algorithm '" + a.name + "' follows the network's hierarchy and needs a Topology (a platform, or a rank map)");
    if (is_reduction(r.coll) && !r.commutative && !a.keeps_order) detail::throw_needs_commutative(r, a.name.c_str());
    return a.build(r);
}

}  // namespace gridcoll
