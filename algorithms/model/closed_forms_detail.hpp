// Private to algorithms/model: what the per-table files of the closed forms share (paper 002
// Tables 1-4; the dispatcher is closed_forms.cpp).
//
// References: [P002] Tables 1-4 (algorithms/REFERENCES.md).
#pragma once

#include <cmath>
#include <optional>
#include <string_view>

#include "gridcoll/algorithms/model/closed_forms.hpp"

namespace gridcoll::model::detail {

// A message cut into n_s segments of m_s bytes (paper 002 §5: n_s = ceil(m / m_s)).
struct Seg {
    double n = 1;   // n_s
    double ms = 0;  // m_s
};

// ceil(log2 x) and floor(log2 x) for x >= 1.
inline int ceil_log2(long long x) {
    int r = 0;
    while ((1LL << r) < x) ++r;
    return r;
}
inline int floor_log2(long long x) {
    int r = 0;
    while ((2LL << r) <= x) ++r;
    return r;
}
inline bool is_pow2(long long x) { return x > 0 && (x & (x - 1)) == 0; }

// LogGP's (m - 1) G for a message of m bytes (paper 002 §3.1); 0 for m <= 1 (an empty message
// costs no per-byte gap).
inline double gap_bytes(double m, double G) { return m > 1 ? (m - 1) * G : 0.0; }

// The model parameters of a level; throw Error naming the level when absent.
const HockneyParams& hockney_of(const LevelParams& l);
const LogGPParams& loggp_of(const LevelParams& l);
const PLogPParams& plogp_of(const LevelParams& l);

// Table 1 (barrier), Table 2 (broadcast; "kary" from paper 000), Table 3 (reduce), Table 4
// (alltoall). nullopt when the table has no row for the algorithm or model; P >= 2.
std::optional<double> barrier_formula(Model model, std::string_view alg, int P, const LevelParams& l);
std::optional<double> bcast_formula(Model model, std::string_view alg, int P, double bytes, Seg s, int fanout,
                                    const LevelParams& l);
std::optional<double> reduce_formula(Model model, std::string_view alg, int P, Seg s, double gamma,
                                     const LevelParams& l);
std::optional<double> alltoall_formula(Model model, std::string_view alg, int P, double bytes, Seg s,
                                       const LevelParams& l);

}  // namespace gridcoll::model::detail
