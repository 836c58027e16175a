// Conversions between the point-to-point models of paper 002 §3 (Hockney, LogP/LogGP, PLogP) and
// PLogP parameters of a plain network link.
//
// Paper 002 §6.1: "Values of LogP and LogGP were obtained from the fitted PLogP values as
// explained by Kielmann et al. in [6]"; §3.1: "If g(m) is a linear function of message size m
// and L excludes the sender overhead, then the PLogP model is equivalent to LogGP". The
// derivations below make the models agree on the time of one message of m bytes:
//
//   PLogP:   T(m) = L + g(m)                       (paper 002 §3.1, paper 000 r(m))
//   LogGP:   T(m) = L' + 2o + (m - 1) G            (paper 002 §3.1)
//   Hockney: T(m) = alpha(m) + m beta(m)           (paper 002 §3.1)
//
// LogGP from PLogP (Kielmann et al. [6], logp_mpi conventions; a LogP "small message" is 1 byte):
//   o  = (os(1) + or(1)) / 2
//   g  = g(1)
//   G  = slope of g(m) for large m: the slope of g's last table segment (the slope the
//        SizeFunction extrapolates with; 0 when g has fewer than two points)
//   L' = L + g(1) - os(1) - or(1)  (= L + g(1) - 2o, so that L' + 2o = L + g(1) at m = 1;
//        clamped at 0 like logp_mpi's "L unknown")
// Example, Boba (paper 002 Table 5: L' = 30.40 us, o = 8.15 us, g = 8.683 us): the PLogP latency
// behind it is L = L' + 2o - g = 38.017 us.
//
// Hockney from PLogP: beta = G (constant: the asymptotic time per byte) and
//   alpha(m) = L + g(m) - G m   (the start-up cost left over at size m),
// so alpha(m) + m beta(m) = L + g(m) at every m, and alpha(0) = L + g(0) is the zero-byte
// message time the barrier formulas of Table 1 use.
//
// PLogP from a link of one-way `latency` (s) and `bandwidth` (bytes/s), for the simulator and
// the figures:  L = latency,  os(m) = or(m) = overhead,  g(m) = overhead + m / bandwidth.
// The per-message constant `overhead` keeps g(m) >= os(m), or(m) (paper 000 §2.1) and g(0) > 0.
#pragma once

#include <string>

#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

// Default per-message host cost of plogp_from_link: 1 us (a small constant; an assumption, not
// a measurement — pass the platform's own value when known).
inline constexpr double kDefaultLinkOverhead = 1e-6;

LogGPParams loggp_from_plogp(const PLogPParams& p);
HockneyParams hockney_from_plogp(const PLogPParams& p);
// Throws Error when latency < 0, bandwidth <= 0 or overhead < 0 (or any is not finite).
PLogPParams plogp_from_link(double latency, double bandwidth, double overhead = kDefaultLinkOverhead);

// A level with all three models from one link (PLogP from the link, the others derived).
LevelParams level_from_link(std::string name, double latency, double bandwidth,
                            double overhead = kDefaultLinkOverhead);
// Fills the models a level lacks from its PLogP parameters (no-op without PLogP).
void complete_from_plogp(LevelParams& level);

}  // namespace gridcoll::model
