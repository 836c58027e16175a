// Barrier closed forms: paper 002 (Pjesivac-Grbovic et al.), Table 1. All messages have zero
// bytes: Hockney alpha = alpha(0); PLogP g = g(0), L; LogGP is LogP (G plays no part).
//
//   flat          Hockney  (P - 1) alpha
//                 LogGP    T_min = (P - 2) g + 2 (L + 2o)
//                          [T_max = (P - 2)(g + o) + 2 (L + 2o), not used]
//                 PLogP    T_min = P g + 2 L
//                          [T_max = P (g + or) + 2 (L - or), not used]
//   double-ring   Hockney  2 P alpha;  LogGP 2 P (L + o + g);  PLogP 2 P (L + g)
//   recursive-    Hockney  log2(P) alpha if P is a power of 2, else (floor(log2 P) + 2) alpha
//   doubling      LogGP    same step counts x (L + o + g);  PLogP same x (L + g)
//   bruck         ceil(log2 P) x alpha | (L + o + g) | (L + g)
//
// Resolved: the Hockney recursive-doubling row prints "(log2(P) + 2) alpha" for non-powers of
// two; the LogGP and PLogP rows and §4.2 ("floor(log2 P) + 2 steps if not") have the floor, which
// is used here. The flat tree is modelled by its best case T_min (§6.2: "where applicable we
// chose to model algorithm performance using the best case scenario").
//
// References: [P002] §4.2, §6.2, Table 1 (algorithms/REFERENCES.md).
#include "closed_forms_detail.hpp"

namespace gridcoll::model::detail {

namespace {

// Communication steps of recursive doubling (§4.2).
double rd_steps(int P) { return is_pow2(P) ? floor_log2(P) : floor_log2(P) + 2.0; }

}  // namespace

std::optional<double> barrier_formula(Model model, std::string_view alg, int P, const LevelParams& l) {
    const double p = P;
    double per_step;  // the cost of one exchange step in the ring / doubling / Bruck rows
    switch (model) {
        case Model::Hockney: {
            const HockneyParams& h = hockney_of(l);
            const double a = h.alpha(0.0);
            if (alg == "flat") return (p - 1) * a;
            per_step = a;
            break;
        }
        case Model::LogGP: {
            const LogGPParams& q = loggp_of(l);
            if (alg == "flat") return (p - 2) * q.g + 2 * (q.L + 2 * q.o);
            per_step = q.L + q.o + q.g;
            break;
        }
        case Model::PLogP: {
            const PLogPParams& q = plogp_of(l);
            const double g = q.g(0.0);
            if (alg == "flat") return p * g + 2 * q.L;
            per_step = q.L + g;
            break;
        }
        default: return std::nullopt;
    }
    if (alg == "double-ring") return 2 * p * per_step;
    if (alg == "recursive-doubling") return rd_steps(P) * per_step;
    if (alg == "bruck") return ceil_log2(P) * per_step;
    return std::nullopt;
}

}  // namespace gridcoll::model::detail
