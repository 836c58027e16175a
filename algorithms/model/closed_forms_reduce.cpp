// Reduce closed forms: paper 002 (Pjesivac-Grbovic et al.), Table 3. n = n_s segments of m_s
// bytes; H = ceil(log2(P + 1)); c = gamma m_s (compute time of one segment, §3.2); Hockney
// t = alpha(m_s) + beta(m_s) m_s + c; LogGP gm = (m_s - 1) G; PLogP x = max{g, or + c} (at m_s).
//
//   flat      Hockney  n (P - 1) t
//             LogGP    o + gm + L + n max{g, (P - 1)(o + gm + c)}                       [1]
//             PLogP    L + (P - 1) n x
//   pipeline  Hockney  (P + n - 2) t
//             LogGP    (P - 1)(L + 2o + gm + c) + (n - 1) max{g, 2o + gm + c}           [1]
//             PLogP    (P - 1)(L + x) + (n - 1)(x + os)                                 [1]
//   binomial  Hockney  n ceil(log2 P) t
//             LogGP    ceil(log2 P)(o + L + n (gm + max{g, o + c}))
//             PLogP    ceil(log2 P)(L + n max{g, or + c + os})
//   binary    Hockney  2 (H + n - 2) t
//             LogGP    (H - 1)(L + 3o + gm + 2c) + (n - 1)(gm + max{g, 3o + 2c})        [2]
//             PLogP    (H - 1)(L + 2x) + (n - 1)(os + 2x)                               [1]
//
// How the garbled rows of the text were read:
// [1] printed as fake fractions: flat LogGP "(o + gm + L + n max{...}) / n_s", pipeline LogGP
//     and PLogP "(A + (n_s - 1) B) / (n_s - 1)", binary PLogP likewise: two-line sums A + B set
//     as (A + B) over (the start of) B. Read as A + B: a time cannot be divided by a segment
//     count and stay a time, and A + B is the pipeline shape of the other rows (first segment
//     through the tree, then one period per further segment).
// [2] printed as the fake fraction "(H - 1)((L + 3o + gm + 2c) + (n_s - 1)(gm + max{..})) /
//     (n_s - 1)". Read as A + B with A = (H - 1)(L + 3o + gm + 2c), B = (n_s - 1)(...): the
//     extra parenthesis that would make (H - 1) multiply B belongs to the fraction artefact;
//     A + B is the shape of the PLogP and Hockney binary rows (2 (H + n - 2) t).
//
// References: [P002] §3.2, Table 3 (algorithms/REFERENCES.md).
#include "closed_forms_detail.hpp"

#include <algorithm>

namespace gridcoll::model::detail {

std::optional<double> reduce_formula(Model model, std::string_view alg, int Pi, Seg s, double gamma,
                                     const LevelParams& l) {
    const double P = Pi, n = s.n, ms = s.ms, c = gamma * ms;
    const double H = ceil_log2(static_cast<long long>(Pi) + 1), lg = ceil_log2(Pi);
    switch (model) {
        case Model::Hockney: {
            const HockneyParams& h = hockney_of(l);
            const double t = h.alpha(ms) + h.beta(ms) * ms + c;
            if (alg == "flat") return n * (P - 1) * t;
            if (alg == "pipeline") return (P + n - 2) * t;
            if (alg == "binomial") return n * lg * t;
            if (alg == "binary") return 2 * (H + n - 2) * t;
            return std::nullopt;
        }
        case Model::LogGP: {
            const LogGPParams& q = loggp_of(l);
            const double gm = gap_bytes(ms, q.G);
            if (alg == "flat") return q.o + gm + q.L + n * std::max(q.g, (P - 1) * (q.o + gm + c));
            if (alg == "pipeline") return (P - 1) * (q.L + 2 * q.o + gm + c) + (n - 1) * std::max(q.g, 2 * q.o + gm + c);
            if (alg == "binomial") return lg * (q.o + q.L + n * (gm + std::max(q.g, q.o + c)));
            if (alg == "binary") return (H - 1) * (q.L + 3 * q.o + gm + 2 * c) + (n - 1) * (gm + std::max(q.g, 3 * q.o + 2 * c));
            return std::nullopt;
        }
        case Model::PLogP: {
            const PLogPParams& q = plogp_of(l);
            const double g = q.g(ms), os = q.os(ms), or_ = q.or_(ms);
            const double x = std::max(g, or_ + c);
            if (alg == "flat") return q.L + (P - 1) * n * x;
            if (alg == "pipeline") return (P - 1) * (q.L + x) + (n - 1) * (x + os);
            if (alg == "binomial") return lg * (q.L + n * std::max(g, or_ + c + os));
            if (alg == "binary") return (H - 1) * (q.L + 2 * x) + (n - 1) * (os + 2 * x);
            return std::nullopt;
        }
    }
    return std::nullopt;
}

}  // namespace gridcoll::model::detail
