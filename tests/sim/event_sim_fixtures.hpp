// Shared by the event simulator's tests (test_event_sim*.cpp): PLogP levels like a LAN and a WAN,
// a broadcast request, the simulated time of one algorithm, an exact comparison, two clusters.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/sim/event_sim.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/tree.hpp"

using namespace gridcoll;
using gridcoll::model::LogGPParams;
using gridcoll::model::PLogPParams;
using gridcoll::model::SizeFunction;

namespace event_sim_fixtures {

// A LAN-like PLogP level with size-dependent, piecewise-linear parameters (g >= os + or).
inline PLogPParams lan() {
    PLogPParams p;
    p.L = 25e-6;
    p.g = SizeFunction({{0, 8e-6}, {1024, 12e-6}, {65536, 600e-6}, {1 << 20, 9e-3}});
    p.os = SizeFunction({{0, 2e-6}, {65536, 100e-6}, {1 << 20, 1.5e-3}});
    p.or_ = SizeFunction({{0, 3e-6}, {65536, 120e-6}, {1 << 20, 2e-3}});
    return p;
}

// A WAN-like level: long latency, large gap, small overheads.
inline PLogPParams wan() {
    PLogPParams p;
    p.L = 5e-3;
    p.g = SizeFunction::affine(50e-6, 1.0 / 12.5e6);
    p.os = SizeFunction::constant(20e-6);
    p.or_ = SizeFunction::constant(20e-6);
    return p;
}

inline Request bcast(int P, std::uint64_t bytes, std::uint64_t segment, int root = 0) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = P;
    r.root = root;
    r.bytes = bytes;
    r.params.segment = segment;
    return r;
}

inline double sim_time(const Request& r, const std::string& alg, const std::vector<PLogPParams>& levels,
                       const Topology* topo = nullptr, sim::SimOptions opt = {}) {
    return sim::simulate(r, alg, topo, std::span<const PLogPParams>(levels), opt).time;
}

inline void expect_rel(double got, double want, const std::string& what) {
    EXPECT_LE(std::abs(got - want), 1e-9 * std::abs(want)) << what << ": simulated " << got << " closed form " << want;
}

// Two clusters of P/2 ranks each: {0..P/2-1}, {P/2..P-1}; level 0 "wan", level 1 "lan".
inline Topology two_clusters(int P) {
    std::vector<std::vector<int>> c;
    for (int r = 0; r < P; ++r) c.push_back({0, r < P / 2 ? 0 : 1});
    return Topology(std::move(c), {"wan", "lan"});
}

}  // namespace event_sim_fixtures

using namespace event_sim_fixtures;
