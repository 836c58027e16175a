// The P-LogP broadcast optimiser of paper 000 (Kielmann, Bal, Gorlatch, IPDPS 2000, §3.1-§3.2):
// for a message of M bytes, choose the segment size m (k = ceil(M / m) segments) and the tree
// degree(s) that minimise the model's completion time (plogp_kernel.hpp / closed_forms.hpp):
//   single layer: T = (k - 1) gamma + lambda over a d-ary tree of P processes;
//   two layers:   T = (k - 1) gamma + lambda_w + lambda_l, pipelined WAN tree of degree d_w
//                 over the cluster coordinators and LAN trees of degree d_l in every cluster.
//
// Search::Heuristic is paper 000's run-time search:
//   segment size: (1) m = M / 2^i for every i with 2^i <= K (the paper's "binary search" over
//     halvings; all of them are evaluated, at most log2 K + 1), then (2) hill climbing on k from
//     the best k': evaluate k' - 5, k' - 1, k' + 1, k' + 5 and move to the best while it improves
//     ("the simultaneous look-ahead of 1 and 5 steps helps overcoming local minima");
//   degree, for each m: d from g(m)/s(m) (floored, at least 1) upwards, only the values where
//     the height h drops ("values for d in between can not improve completion time");
//   two layers, for each m and d_w: the LAN degree d_l in [1 .. gamma'/s_l(m)] with
//     gamma' = max(g_w(m) - or_w(m) - d_w s_w(m), s_l(m)), again only where h_l drops.
// Search::Exhaustive is the offline reference: every k in 1..K and every degree (every d in
// 1..P-1; every d_w in 1..C-1 with every d_l in 1..S-1). The heuristic is never better.
//
// K = min(limits.max_segments, ceil(M / extent)). A segment size is a multiple of `extent`
// (the MPI datatype extent) and splits M into k segments: m = ceil(M / k) rounded up to the
// extent, k = ceil(M / m).
//
// Cost: the heuristic allocates nothing and evaluates a few hundred candidate (m, d) pairs
// (`evaluations` counts them); it is meant to run for every MPI_Bcast (paper 000: "the
// optimal broadcast tree and segment size have to be computed at runtime for each invocation").
// The exhaustive search costs K * P (single layer) or K * C * S (two layers) evaluations.
#pragma once

#include <cstdint>

#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

enum class Search { Heuristic, Exhaustive };

struct SearchLimits {
    std::uint64_t max_segments = 1u << 14;  // K: the largest number of segments considered
    std::uint64_t extent = 1;               // segment sizes are multiples of this (bytes)
    // Two-layer heuristic only: true = paper 000's bound d_l <= gamma'/s_l(m); false = every
    // LAN degree where h_l drops (not in the paper; it repairs the few-segment cases where the
    // bound forces a LAN chain although gamma hardly matters — see validation/bench/optimizer_sweep).
    bool bound_lan_degree = true;
    // > 0: only this segment size (capped at M) is considered, and the degrees are searched for
    // it (a method that names its segment, e.g. twolayer:seg=64K). Heuristic search only.
    std::uint64_t segment = 0;
    // > 0: no segment smaller than this unless the whole message is (at most M / min_segment
    // segments). twolayer passes MPI's eager limit: see algorithms/hierarchical/twolayer.cpp.
    std::uint64_t min_segment = 0;
};

struct SingleLayerChoice {
    std::uint64_t segment = 0;   // m (bytes)
    std::uint64_t segments = 0;  // k = ceil(M / m)
    int degree = 0;              // d (P - 1: flat tree)
    double time = 0;             // predicted T (seconds)
    std::uint64_t evaluations = 0;
};

struct TwoLayerChoice {
    std::uint64_t segment = 0;   // m, the same in both layers
    std::uint64_t segments = 0;  // k
    int wan_degree = 0;          // d_w (0 with one cluster)
    int lan_degree = 0;          // d_l (0 with clusters of one process)
    double time = 0;
    std::uint64_t evaluations = 0;
};

// M = 0 or P = 1: nothing to send (time 0, segments 0). Throws Error for P < 1, extent < 1 or
// max_segments < 1.
SingleLayerChoice optimize_single_layer(std::uint64_t M, int P, const PLogPParams& p,
                                        Search search = Search::Heuristic, const SearchLimits& limits = {});

// `clusters` coordinators joined by the WAN, each heading a cluster of `cluster_size`
// processes (itself included). One cluster: the single-layer LAN result (wan_degree 0).
// Throws Error for clusters < 1, cluster_size < 1 or bad limits.
TwoLayerChoice optimize_two_layer(std::uint64_t M, int clusters, int cluster_size, const PLogPParams& wan,
                                  const PLogPParams& lan, Search search = Search::Heuristic,
                                  const SearchLimits& limits = {});

}  // namespace gridcoll::model
