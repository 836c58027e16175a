// Alltoall closed forms: paper 002 (Pjesivac-Grbovic et al.), Table 4. m is the block one
// process sends to each other process; the linear algorithm segments it (n = n_s segments of
// m_s bytes), pairwise exchange does not (§4.2: "We do not segment messages in this algorithm").
// Q = (P - 1)(n P + 1 - P/2) is the linear algorithm's count of serialised sends.
//
//   linear    Hockney  P (alpha(m_s) + beta(m_s) m_s) + Q alpha(m_s)                    [1]
//             LogGP    P (L + 2o) + Q (g + (m_s - 1) G)                                 [1]
//             PLogP    P L + Q g(m_s)                                                   [1]
//   pairwise  Hockney  (P - 1)(alpha(m) + beta(m) m)
//             LogGP    (P - 1)(L + o + (m - 1) G + g)
//             PLogP    (P - 1)(L + g(m))
//
// [1] All three linear rows are printed as fake fractions "(P X + Q Y) / Q": a two-line sum
//     A + B set as (A + B) over (the factor Q of) B. Read as A + B: P start-up latencies plus
//     Q serialised per-message costs (P/2 is a real division, as printed).
//
// References: [P002] §4.2, Table 4 (algorithms/REFERENCES.md).
#include "closed_forms_detail.hpp"

namespace gridcoll::model::detail {

std::optional<double> alltoall_formula(Model model, std::string_view alg, int Pi, double bytes, Seg s,
                                       const LevelParams& l) {
    const double P = Pi, n = s.n, ms = s.ms, m = bytes;
    const double Q = (P - 1) * (n * P + 1 - P / 2);
    const bool linear = alg == "linear", pairwise = alg == "pairwise";
    if (!linear && !pairwise) return std::nullopt;
    switch (model) {
        case Model::Hockney: {
            const HockneyParams& h = hockney_of(l);
            if (linear) return P * (h.alpha(ms) + h.beta(ms) * ms) + Q * h.alpha(ms);
            return (P - 1) * (h.alpha(m) + h.beta(m) * m);
        }
        case Model::LogGP: {
            const LogGPParams& q = loggp_of(l);
            if (linear) return P * (q.L + 2 * q.o) + Q * (q.g + gap_bytes(ms, q.G));
            return (P - 1) * (q.L + q.o + gap_bytes(m, q.G) + q.g);
        }
        case Model::PLogP: {
            const PLogPParams& q = plogp_of(l);
            if (linear) return P * q.L + Q * q.g(ms);
            return (P - 1) * (q.L + q.g(m));
        }
    }
    return std::nullopt;
}

}  // namespace gridcoll::model::detail
