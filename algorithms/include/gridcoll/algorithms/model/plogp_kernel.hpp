// Private to algorithms/model: the arithmetic of paper 000's P-LogP broadcast model (Kielmann,
// Bal, Gorlatch, IPDPS 2000), shared by the closed forms (plogp_bcast.cpp) and the optimiser
// (plogp_optimizer.cpp, plogp_exhaustive.cpp). Inline, no allocation.
//
// §2.1: s(m) = g(m), r(m) = L + g(m) on one network; across the WAN of a two-layer system
//       s_w(m) = max(g_l(m), os_w(m)), r_w(m) = L_w + g_w(m).
// §3.1: a tree of degree d over P nodes has height h = min h : sum_{i=0..h} d^i >= P; with k
//       segments of m bytes a broadcast takes T = (k - 1) gamma + lambda, where for MagPIe's
//       flat tree (d = P - 1, h = 1)
//           gamma = max(g(m), (P - 1) s(m)),   lambda = (P - 2) s(m) + r(m)
//       and for any other d-ary tree the upper bounds
//           gamma <= max(g(m), or(m) + d s(m)),   lambda <= h ((d - 1) s(m) + r(m)).
// §3.2: pipelined two-layer broadcast, same segment size in both layers:
//           T = (k - 1) gamma + lambda_w + lambda_l,
//           gamma = max(g_w(m), or_w(m) + d_w s_w(m) + d_l s_l(m)),
//       lambda_w, lambda_l the bounds above with (d_w, h_w, s_w, r_w) and (d_l, h_l, s_l, r_l).
//
// References: [P000] §2.1, §3.1-§3.2 (algorithms/REFERENCES.md).
#pragma once

#include <algorithm>
#include <cstdint>

#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model::detail {

// min h : sum_{i=0..h} d^i >= P  (0 for P <= 1; P - 1 for a chain, d = 1).
inline int tree_height(std::int64_t d, std::int64_t P) {
    if (P <= 1) return 0;
    if (d <= 1) return static_cast<int>(P - 1);
    std::int64_t sum = 1, term = 1;
    int h = 0;
    while (sum < P) {
        term *= d;  // term < P before this product: no overflow for d, P < 2^31
        sum += term;
        ++h;
    }
    return h;
}

// One network's costs for one segment of m bytes (paper 000 §2.1).
struct SegmentCosts {
    double g = 0;    // g(m): gap, the link is busy this long
    double or_ = 0;  // or(m): receiver CPU
    double s = 0;    // s(m): the sender may send again
    double r = 0;    // r(m): the receiver has the message
};

// Single network: s = g, r = L + g.
inline SegmentCosts costs(const PLogPParams& p, double m) {
    const double g = p.g(m);
    return {g, p.or_(m), g, p.L + g};
}

// The WAN hop of a two-layer system: s_w = max(g_l, os_w), r_w = L_w + g_w.
inline SegmentCosts wan_costs(const PLogPParams& wan, const PLogPParams& lan, double m) {
    const double gw = wan.g(m);
    return {gw, wan.or_(m), std::max(lan.g(m), wan.os(m)), wan.L + gw};
}

// Single-layer tree of degree d (clamped to P - 1) and height h = tree_height(d, P), k segments.
inline double tree_time(const SegmentCosts& c, std::int64_t P, double k, std::int64_t d, int h) {
    if (P <= 1) return 0.0;
    double gamma, lambda;
    if (d >= P - 1) {  // flat tree: exact (the root receives nothing)
        gamma = std::max(c.g, static_cast<double>(P - 1) * c.s);
        lambda = static_cast<double>(P - 2) * c.s + c.r;
    } else {  // upper bounds
        gamma = std::max(c.g, c.or_ + static_cast<double>(d) * c.s);
        lambda = h * (static_cast<double>(d - 1) * c.s + c.r);
    }
    return (k - 1) * gamma + lambda;
}

// lambda bound of one layer: h ((d - 1) s + r); 0 without a tree (d = 0 or h = 0).
inline double layer_lambda(const SegmentCosts& c, std::int64_t d, int h) {
    return (d <= 0 || h <= 0) ? 0.0 : h * (static_cast<double>(d - 1) * c.s + c.r);
}

// Pipelined two-layer broadcast (§3.2). dl = 0 (and hl = 0) for clusters of one process.
inline double pipelined_time(const SegmentCosts& w, const SegmentCosts& l, double k, std::int64_t dw, int hw,
                             std::int64_t dl, int hl) {
    const double gamma = std::max(w.g, w.or_ + static_cast<double>(dw) * w.s + static_cast<double>(dl) * l.s);
    return (k - 1) * gamma + layer_lambda(w, dw, hw) + layer_lambda(l, dl, hl);
}

}  // namespace gridcoll::model::detail
