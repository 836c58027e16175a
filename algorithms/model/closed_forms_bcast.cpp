// Broadcast closed forms: paper 002 (Pjesivac-Grbovic et al.), Table 2, and for "kary" paper
// 000 (Kielmann et al.) §3.1. n = n_s segments of m_s bytes; H = ceil(log2(P + 1)) (levels of
// a binary tree); Hockney t = alpha(m_s) + m_s beta(m_s); LogGP gm = (m_s - 1) G.
//
//   linear           Hockney  n (P - 1) t
//                    LogGP    L + 2o - g + n (P - 1) (gm + g)
//                    PLogP    L + n (P - 1) g(m_s)
//   pipeline         Hockney  (P + n - 2) t
//                    LogGP    (P - 1)(L + 2o + gm) + (n - 1)(g + gm)
//                    PLogP    (P - 1)(L + g(m_s)) + (n - 1) g(m_s)
//   binomial         Hockney  ceil(log2 P) n t
//                    LogGP    ceil(log2 P) (L + 2o + gm + (n - 1)(g + gm))            [1]
//                    PLogP    ceil(log2 P) (L + n g(m_s))
//   binary           Hockney  (H + n - 2)(2 alpha(m_s) + m_s beta(m_s))
//                    LogGP    (H - 1)(L + 2 (o + gm + g)) + 2 (n - 1)(gm + g)          [2]
//                    PLogP    (H - 1)(L + 2 g) + (n - 1) max{2 g, or + g + os}   (at m_s)
//   splitted-binary  Hockney  (H + ceil(n/2) - 2)(2 alpha(m_s) + m_s beta(m_s))
//                             + alpha(m_s/2) + (m_s/2) beta(m_s/2)
//                    LogGP    (H - 1)(L + g + 2 (o + gm)) + 2 (ceil(n/2) - 1)(g + gm)
//                             + L + 2o + (m_s/2 - 1) G                                 [3]
//                    PLogP    (H - 1)(L + 2 g) + (ceil(n/2) - 1) max{2 g, or + g + os} [4]
//   kary (PLogP)     paper 000: T = (k - 1) gamma + lambda, d = fan-out (plogp_kernel.hpp)
//
// How the garbled rows of the text were read:
// [1] printed as a fake fraction (L + 2o + gm + (n-1)(g + gm)) / ((n-1)(g + gm)): a two-line
//     sum A + B set as (A + B) over B. Read as A + B, the same shape as the PLogP row
//     ceil(log2 P)(L + n g): one latency per tree level plus the gaps of all segments.
// [2] printed without any n_s: "(H-1)(L + 2(o + gm + g)) + 2((m_s-1)G + g)". A formula that
//     "accounts for message segmentation" (§5) cannot ignore n_s; read as 2 (n_s - 1)(gm + g):
//     after the first segment, each further one costs an inner node two sends, as in the PLogP
//     row's (n_s - 1) max{2 g, ...} and the Hockney row's (n_s - 1)(2 alpha + ...).
// [3] printed as "2 (ceil(n/2) - 1)(L + g + 2(o + gm)) + ceil(log2(P+1)) - 1 x (g + gm) + L +
//     2o + (m_s/2 - 1)G": the operator precedence is lost ("ceil(..) - 1 x (..)") and, read
//     literally, a tree of height H - 1 would be crossed with a single latency L while every
//     extra segment pays one. Read with the height multiplying the latency term and the segment
//     count multiplying the gap term, as in the binary and PLogP rows.
// [4] printed as (n_s/2 - 1); ceil(n_s/2) as in the Hockney and LogGP rows (each half carries
//     ceil(n_s/2) segments). As printed, the PLogP row has no term for the final exchange.
//
// References: [P002] §5, Table 2; [P000] §3.1 (algorithms/REFERENCES.md).
#include "closed_forms_detail.hpp"

#include <algorithm>

namespace gridcoll::model::detail {

namespace {

std::optional<double> hockney(std::string_view alg, double P, Seg s, const HockneyParams& h) {
    const double n = s.n, ms = s.ms;
    const double a = h.alpha(ms), b = h.beta(ms);
    const double t = a + ms * b;
    const double H = ceil_log2(static_cast<long long>(P) + 1);
    if (alg == "linear") return n * (P - 1) * t;
    if (alg == "pipeline") return (P + n - 2) * t;
    if (alg == "binomial") return ceil_log2(static_cast<long long>(P)) * n * t;
    if (alg == "binary") return (H + n - 2) * (2 * a + ms * b);
    if (alg == "splitted-binary") {
        const double half = ms / 2;
        return (H + std::ceil(n / 2) - 2) * (2 * a + ms * b) + h.alpha(half) + half * h.beta(half);
    }
    return std::nullopt;
}

std::optional<double> loggp(std::string_view alg, double P, Seg s, const LogGPParams& q) {
    const double n = s.n, ms = s.ms;
    const double gm = gap_bytes(ms, q.G);
    const double H = ceil_log2(static_cast<long long>(P) + 1);
    if (alg == "linear") return q.L + 2 * q.o - q.g + n * (P - 1) * (gm + q.g);
    if (alg == "pipeline") return (P - 1) * (q.L + 2 * q.o + gm) + (n - 1) * (q.g + gm);
    if (alg == "binomial") return ceil_log2(static_cast<long long>(P)) * (q.L + 2 * q.o + gm + (n - 1) * (q.g + gm));
    if (alg == "binary") return (H - 1) * (q.L + 2 * (q.o + gm + q.g)) + 2 * (n - 1) * (gm + q.g);
    if (alg == "splitted-binary")
        return (H - 1) * (q.L + q.g + 2 * (q.o + gm)) + 2 * (std::ceil(n / 2) - 1) * (q.g + gm) + q.L + 2 * q.o +
               gap_bytes(ms / 2, q.G);
    return std::nullopt;
}

std::optional<double> plogp(std::string_view alg, double P, double bytes, Seg s, int fanout, const PLogPParams& q) {
    const double n = s.n, ms = s.ms;
    const double g = q.g(ms), os = q.os(ms), or_ = q.or_(ms);
    const double H = ceil_log2(static_cast<long long>(P) + 1);
    if (alg == "linear") return q.L + n * (P - 1) * g;
    if (alg == "pipeline") return (P - 1) * (q.L + g) + (n - 1) * g;
    if (alg == "binomial") return ceil_log2(static_cast<long long>(P)) * (q.L + n * g);
    if (alg == "binary") return (H - 1) * (q.L + 2 * g) + (n - 1) * std::max(2 * g, or_ + g + os);
    if (alg == "splitted-binary") return (H - 1) * (q.L + 2 * g) + (std::ceil(n / 2) - 1) * std::max(2 * g, or_ + g + os);
    if (alg == "kary") return bcast_plogp_tree(q, static_cast<int>(P), bytes, s.ms < bytes ? s.ms : 0.0, fanout);
    return std::nullopt;
}

}  // namespace

std::optional<double> bcast_formula(Model model, std::string_view alg, int P, double bytes, Seg s, int fanout,
                                    const LevelParams& l) {
    switch (model) {
        case Model::Hockney: return hockney(alg, P, s, hockney_of(l));
        case Model::LogGP: return loggp(alg, P, s, loggp_of(l));
        case Model::PLogP: return plogp(alg, P, bytes, s, fanout, plogp_of(l));
    }
    return std::nullopt;
}

}  // namespace gridcoll::model::detail
