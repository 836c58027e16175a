// Paper 000 (Kielmann, Bal, Gorlatch, IPDPS 2000) §3.1-§3.2: the run-time P-LogP optimiser of
// the segmented broadcast — the heuristic search (halvings of M, then hill climbing on k with
// +-1 / +-5 look-ahead; degrees from g(m)/s(m) upwards where the tree height drops; the LAN
// degree of a two-layer tree bounded by gamma'/s_l(m)). The objective functions are those of
// plogp_kernel.hpp:
//   single layer  T = (k - 1) gamma + lambda
//   two layers    T = (k - 1) max(g_w, or_w + d_w s_w + d_l s_l) + lambda_w + lambda_l
//   with gamma' = max(g_w(m) - or_w(m) - d_w s_w(m), s_l(m)).
// The exhaustive reference search is in plogp_exhaustive.cpp. Nothing here allocates.
//
// References: [P000] §3.1-§3.2 (algorithms/REFERENCES.md).
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "gridcoll/algorithms/model/plogp_search.hpp"

namespace gridcoll::model {

namespace {

using detail::SegK;

// Halvings m = M / 2^i (k = 2^i <= K), then hill climbing on k from the best k'; or only the
// `fixed` segment size, when given (SearchLimits::segment).
// `eval(SegK)` returns the best choice for that segment size (fields .time and .segments).
template <class Choice, class Eval>
Choice search_segments(std::uint64_t M, std::uint64_t K, std::uint64_t extent, std::uint64_t fixed, Eval&& eval) {
    if (fixed > 0) {
        const std::uint64_t m = std::min(fixed, M);
        return eval(SegK{m, M / m + (M % m != 0)});
    }
    Choice best = eval(detail::segment_for(M, 1, extent));
    for (std::uint64_t k = 2; k <= K; k *= 2) {
        const Choice c = eval(detail::segment_for(M, k, extent));
        if (c.time < best.time) best = c;
        if (k > K / 2) break;
    }
    constexpr std::int64_t kSteps[] = {-5, -1, 1, 5};
    for (;;) {
        Choice step = best;
        for (const std::int64_t delta : kSteps) {
            const std::int64_t kk = static_cast<std::int64_t>(best.segments) + delta;
            if (kk < 1 || static_cast<std::uint64_t>(kk) > K) continue;
            const SegK sk = detail::segment_for(M, static_cast<std::uint64_t>(kk), extent);
            if (sk.k == best.segments) continue;  // same segment size as k'
            const Choice c = eval(sk);
            if (c.time < step.time) step = c;
        }
        if (!(step.time < best.time)) break;
        best = step;
    }
    return best;
}

}  // namespace

SingleLayerChoice optimize_single_layer(std::uint64_t M, int P, const PLogPParams& p, Search search,
                                        const SearchLimits& limits) {
    detail::check_count("number of processes", P);
    if (M == 0 || P == 1) {
        detail::max_k(1, limits);  // still reject bad limits
        return {0, 0, P - 1, 0.0, 0};
    }
    const std::uint64_t K = detail::max_k(M, limits);
    if (search == Search::Exhaustive && limits.segment > 0) throw Error("a given segment size needs the heuristic search");
    if (search == Search::Exhaustive) return detail::exhaustive_single_layer(M, P, p, K, limits.extent);

    const detail::DegreeSteps steps(P);
    std::uint64_t evals = 0;
    auto eval = [&](SegK sk) {
        const detail::SegmentCosts c = detail::costs(p, static_cast<double>(sk.m));
        const double k = static_cast<double>(sk.k);
        SingleLayerChoice best{sk.m, sk.k, 0, std::numeric_limits<double>::infinity(), 0};
        auto consider = [&](int d, int h) {
            const double t = detail::tree_time(c, P, k, d, h);
            ++evals;
            if (t < best.time) {
                best.time = t;
                best.degree = d;
            }
        };
        const int dlo = detail::degree_floor(c.g, c.s, P - 1);  // s = g on one network: 1
        consider(dlo, detail::tree_height(dlo, P));
        for (int i = 0; i < steps.n; ++i)
            if (steps.d[i] > dlo) consider(steps.d[i], steps.h[i]);
        return best;
    };
    SingleLayerChoice best = search_segments<SingleLayerChoice>(M, K, limits.extent, limits.segment, eval);
    best.evaluations = evals;
    return best;
}

TwoLayerChoice optimize_two_layer(std::uint64_t M, int clusters, int cluster_size, const PLogPParams& wan,
                                  const PLogPParams& lan, Search search, const SearchLimits& limits) {
    detail::check_count("number of clusters", clusters);
    detail::check_count("cluster size", cluster_size);
    const int C = clusters, S = cluster_size;
    if (C == 1) {
        const SingleLayerChoice s = optimize_single_layer(M, S, lan, search, limits);
        return {s.segment, s.segments, 0, s.degree, s.time, s.evaluations};
    }
    if (M == 0) {
        detail::max_k(1, limits);
        return {0, 0, C - 1, S - 1, 0.0, 0};
    }
    const std::uint64_t K = detail::max_k(M, limits);
    if (search == Search::Exhaustive && limits.segment > 0) throw Error("a given segment size needs the heuristic search");
    if (search == Search::Exhaustive) return detail::exhaustive_two_layer(M, C, S, wan, lan, K, limits.extent);

    const detail::DegreeSteps wsteps(C), lsteps(S);
    std::uint64_t evals = 0;
    auto eval = [&](SegK sk) {
        const double m = static_cast<double>(sk.m), k = static_cast<double>(sk.k);
        const detail::SegmentCosts w = detail::wan_costs(wan, lan, m), l = detail::costs(lan, m);
        TwoLayerChoice best{sk.m, sk.k, 0, 0, std::numeric_limits<double>::infinity(), 0};
        auto with_wan_degree = [&](int dw, int hw) {
            auto consider = [&](int dl, int hl) {
                const double t = detail::pipelined_time(w, l, k, dw, hw, dl, hl);
                ++evals;
                if (t < best.time) {
                    best.time = t;
                    best.wan_degree = dw;
                    best.lan_degree = dl;
                }
            };
            if (S == 1) return consider(0, 0);
            // gamma' = the part of gamma the LAN may use without slowing the WAN (§3.2).
            const double gamma_prime = std::max(w.g - w.or_ - dw * w.s, l.s);
            const int dl_hi = limits.bound_lan_degree ? detail::degree_floor(gamma_prime, l.s, S - 1) : S - 1;
            for (int i = 0; i < lsteps.n && lsteps.d[i] <= dl_hi; ++i) consider(lsteps.d[i], lsteps.h[i]);
        };
        const int dlo = detail::degree_floor(w.g, w.s, C - 1);  // d_w from g_w(m)/s_w(m)
        with_wan_degree(dlo, detail::tree_height(dlo, C));
        for (int i = 0; i < wsteps.n; ++i)
            if (wsteps.d[i] > dlo) with_wan_degree(wsteps.d[i], wsteps.h[i]);
        return best;
    };
    TwoLayerChoice best = search_segments<TwoLayerChoice>(M, K, limits.extent, limits.segment, eval);
    best.evaluations = evals;
    return best;
}

}  // namespace gridcoll::model
