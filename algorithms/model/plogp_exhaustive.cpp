// Paper 000 (Kielmann, Bal, Gorlatch, IPDPS 2000) §3.3, Figure 5 (bottom): the global optimum
// of the P-LogP broadcast model "computed offline by an exhaustive search" — the reference the
// run-time heuristic (plogp_optimizer.cpp) is measured against. Every segment count k in 1..K
// (each distinct segment size m = ceil(M / k) once) and every degree: d in 1..P-1 (single
// layer), or every pair d_w in 1..C-1, d_l in 1..S-1 (two layers, pipelined), with the same
// objective functions (plogp_kernel.hpp). Ties keep the first (smallest k, then smallest d).
//
// References: [P000] §3.3, Figure 5 (algorithms/REFERENCES.md).
#include <limits>
#include <vector>

#include "gridcoll/algorithms/model/plogp_search.hpp"

namespace gridcoll::model::detail {

namespace {

std::vector<int> heights(int P) {
    std::vector<int> h(static_cast<std::size_t>(P), 0);
    for (int d = 1; d < P; ++d) h[static_cast<std::size_t>(d)] = tree_height(d, P);
    return h;
}

}  // namespace

SingleLayerChoice exhaustive_single_layer(std::uint64_t M, int P, const PLogPParams& p, std::uint64_t K,
                                          std::uint64_t extent) {
    const std::vector<int> h = heights(P);
    SingleLayerChoice best{0, 0, 0, std::numeric_limits<double>::infinity(), 0};
    std::uint64_t last_m = 0;
    for (std::uint64_t kr = 1; kr <= K; ++kr) {
        const SegK sk = segment_for(M, kr, extent);
        if (sk.m == last_m) continue;
        last_m = sk.m;
        const SegmentCosts c = costs(p, static_cast<double>(sk.m));
        const double k = static_cast<double>(sk.k);
        for (int d = 1; d < P; ++d) {
            const double t = tree_time(c, P, k, d, h[static_cast<std::size_t>(d)]);
            ++best.evaluations;
            if (t < best.time) {
                best.time = t;
                best.segment = sk.m;
                best.segments = sk.k;
                best.degree = d;
            }
        }
    }
    return best;
}

TwoLayerChoice exhaustive_two_layer(std::uint64_t M, int C, int S, const PLogPParams& wan, const PLogPParams& lan,
                                    std::uint64_t K, std::uint64_t extent) {
    const std::vector<int> hw = heights(C), hl = heights(S);
    const int dl_first = S > 1 ? 1 : 0, dl_last = S > 1 ? S - 1 : 0;
    TwoLayerChoice best{0, 0, 0, 0, std::numeric_limits<double>::infinity(), 0};
    std::uint64_t last_m = 0;
    for (std::uint64_t kr = 1; kr <= K; ++kr) {
        const SegK sk = segment_for(M, kr, extent);
        if (sk.m == last_m) continue;
        last_m = sk.m;
        const double m = static_cast<double>(sk.m), k = static_cast<double>(sk.k);
        const SegmentCosts w = wan_costs(wan, lan, m), l = costs(lan, m);
        for (int dw = 1; dw < C; ++dw) {
            for (int dl = dl_first; dl <= dl_last; ++dl) {
                const double t = pipelined_time(w, l, k, dw, hw[static_cast<std::size_t>(dw)], dl,
                                                 dl > 0 ? hl[static_cast<std::size_t>(dl)] : 0);
                ++best.evaluations;
                if (t < best.time) {
                    best.time = t;
                    best.segment = sk.m;
                    best.segments = sk.k;
                    best.wan_degree = dw;
                    best.lan_degree = dl;
                }
            }
        }
    }
    return best;
}

}  // namespace gridcoll::model::detail
