// Fixed model parameters for the closed-form tests: the hand computations in test_*.cpp use
// exactly these numbers.
//
// LogGP: Boba, paper 002 Table 5: L = 30.40 us, o = 8.15 us, g = 8.683 us, G = 0.015 us/byte.
// PLogP (chosen so that table points fall on the segment sizes used):
//   L = 38.017 us (Boba's L + 2o - g), g: 0 B -> 8.683 us, 512 B -> 16 us, 1024 B -> 24 us,
//   65536 B -> 1000 us; os: 0 -> 8 us, 1024 -> 10 us; or: 0 -> 9 us, 1024 -> 12 us.
//   Hence g(1024) = 24 us, os(1024) = 10 us, or(1024) = 12 us, g(0) = 8.683 us,
//   g(4096) = 24 + 3072 * 976 / 64512 us, os and or constant beyond 1024 only by extrapolation
//   (slopes 2/1024 and 3/1024 us per byte).
// Hockney: alpha: 0 -> 50 us, 512 -> 55 us, 1024 -> 60 us, 65536 -> 60 us;
//   beta: 0 -> 0.02 us/B, 512 -> 0.015 us/B, 1024 -> 0.01 us/B, 65536 -> 0.01 us/B.
//   Hence t(1024) = 60 + 1024 * 0.01 = 70.24 us, t(512) = 55 + 512 * 0.015 = 62.68 us.
#pragma once

#include <cmath>
#include <string>

#include "gridcoll/algorithms/error.hpp"

#include "gridcoll/algorithms/model/params.hpp"

namespace model_fixtures {

// The message of the gridcoll::Error that f() throws, or "(no error)".
template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const gridcoll::Error& e) {
        return e.what();
    }
    return "(no error)";
}

inline constexpr double us = 1e-6;

inline gridcoll::model::LevelParams level() {
    using gridcoll::model::SizeFunction;
    gridcoll::model::LevelParams l;
    l.level = "lan";
    l.loggp = gridcoll::model::LogGPParams{30.40 * us, 8.15 * us, 8.683 * us, 0.015 * us};
    gridcoll::model::PLogPParams p;
    p.L = 38.017 * us;
    p.g = SizeFunction({{0, 8.683 * us}, {512, 16 * us}, {1024, 24 * us}, {65536, 1000 * us}});
    p.os = SizeFunction({{0, 8 * us}, {1024, 10 * us}});
    p.or_ = SizeFunction({{0, 9 * us}, {1024, 12 * us}});
    l.plogp = p;
    gridcoll::model::HockneyParams h;
    h.alpha = SizeFunction({{0, 50 * us}, {512, 55 * us}, {1024, 60 * us}, {65536, 60 * us}});
    h.beta = SizeFunction({{0, 0.02 * us}, {512, 0.015 * us}, {1024, 0.01 * us}, {65536, 0.01 * us}});
    l.hockney = h;
    return l;
}

// Relative tolerance for comparing a formula with its hand computation.
inline double tol(double expected) { return 1e-12 * std::fabs(expected) + 1e-18; }

}  // namespace model_fixtures
