// Private to algorithms/model: search-space helpers of paper 000's P-LogP optimiser (§3.1):
// the segment sizes that split M into k equal segments, and the tree degrees at which the
// height of a P-node tree drops. Inline, no allocation.
//
// References: [P000] §3.1 (algorithms/REFERENCES.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"
#include "gridcoll/algorithms/model/plogp_kernel.hpp"

namespace gridcoll::model::detail {

// The degrees d at which the height h of a P-node tree (tree_height) drops: d = 1 (a chain,
// h = P - 1), then every smallest d whose height is below that of d - 1, up to d = P - 1
// (h = 1). Paper 000 §3.1: "we increase d while only investigating those values of d for which
// the height h will be reduced". Heights of d >= 2 are below 64, so 66 entries suffice.
struct DegreeSteps {
    std::array<int, 66> d{};
    std::array<int, 66> h{};
    int n = 0;

    explicit DegreeSteps(int P) {
        if (P <= 1) return;
        push(1, P - 1);
        if (P == 2) return;
        int dd = 2, hh = tree_height(2, P);
        push(dd, hh);
        while (hh > 1) {  // smallest d' in (dd, P - 1] with a lower height (height(P - 1) = 1)
            int lo = dd + 1, hi = P - 1;
            while (lo < hi) {
                const int mid = lo + (hi - lo) / 2;
                if (tree_height(mid, P) < hh) hi = mid;
                else lo = mid + 1;
            }
            dd = lo;
            hh = tree_height(dd, P);
            push(dd, hh);
        }
    }

private:
    void push(int dd, int hh) {
        d[n] = dd;
        h[n] = hh;
        ++n;
    }
};

// floor(num / den) clamped to [1, dmax] (paper 000: "d in [g(m)/s(m) .. P - 1]", and the LAN
// bound gamma'/s_l(m) of §3.2); den <= 0 gives dmax.
inline int degree_floor(double num, double den, int dmax) {
    if (dmax < 1) return 0;
    if (!(den > 0)) return dmax;
    const double r = num / den;
    if (!(r >= 1)) return 1;
    if (r >= dmax) return dmax;
    return static_cast<int>(r);
}

// A segment size m splitting M into k segments: m = ceil(M / k_req) rounded up to the extent,
// k = ceil(M / m) (k <= k_req).
struct SegK {
    std::uint64_t m = 0, k = 0;
};
inline SegK segment_for(std::uint64_t M, std::uint64_t k_req, std::uint64_t extent) {
    std::uint64_t m = M / k_req + (M % k_req != 0);
    m = (m / extent + (m % extent != 0)) * extent;
    if (m > M) m = M;
    return {m, M / m + (M % m != 0)};
}

// K = min(max_segments, ceil(M / extent), floor(M / min_segment)) (M > 0); throws Error for
// bad limits.
inline std::uint64_t max_k(std::uint64_t M, const SearchLimits& lim) {
    if (lim.extent < 1) throw Error("segment extent must be >= 1 byte, got 0");
    if (lim.max_segments < 1) throw Error("max_segments must be >= 1, got 0");
    const std::uint64_t by_extent = M / lim.extent + (M % lim.extent != 0);
    std::uint64_t k = std::min(lim.max_segments, by_extent);
    if (lim.min_segment > 0) k = std::min(k, M / lim.min_segment);
    return std::max<std::uint64_t>(1, k);
}

inline void check_count(const char* what, int v) {
    if (v < 1) throw Error(std::string(what) + " must be >= 1, got " + std::to_string(v));
}

// The exhaustive searches (plogp_exhaustive.cpp); M >= 1, P >= 2 / C >= 2, K >= 1.
SingleLayerChoice exhaustive_single_layer(std::uint64_t M, int P, const PLogPParams& p, std::uint64_t K,
                                          std::uint64_t extent);
TwoLayerChoice exhaustive_two_layer(std::uint64_t M, int C, int S, const PLogPParams& wan, const PLogPParams& lan,
                                    std::uint64_t K, std::uint64_t extent);

}  // namespace gridcoll::model::detail
