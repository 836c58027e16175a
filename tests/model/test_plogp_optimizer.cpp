// Paper 000's P-LogP broadcast optimiser (algorithms/model/plogp_optimizer.cpp,
// plogp_exhaustive.cpp): the search space helpers, the heuristic never better than the
// exhaustive search, the optimum found on simple cases, the chosen configuration reproducing
// its predicted time, two-layer sanity, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gridcoll/algorithms/model/plogp_search.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"
#include "model_fixtures.hpp"

using namespace gridcoll;
using namespace gridcoll::model;

namespace {

PLogPParams boba() {  // the PLogP behind paper 002 Table 5
    PLogPParams p;
    p.L = 38.017e-6;
    p.os = SizeFunction::constant(8.15e-6);
    p.or_ = SizeFunction::constant(8.15e-6);
    p.g = SizeFunction({{1, 8.683e-6}, {1048577, 8.683e-6 + 1048576 * 0.015e-9}});
    return p;
}

std::vector<PLogPParams> networks() {
    return {boba(), *model_fixtures::level().plogp, plogp_from_link(20e-6, 50e6), plogp_from_link(10e-3, 1e6, 1e-4)};
}

}  // namespace

TEST(SearchSpace, DegreeStepsAreTheHeightDrops) {
    for (int P = 1; P <= 200; ++P) {
        const detail::DegreeSteps s(P);
        int i = 0;
        for (int d = 1; d < P; ++d) {
            const bool drop = d == 1 || detail::tree_height(d, P) < detail::tree_height(d - 1, P);
            if (drop) {
                ASSERT_LT(i, s.n) << "P=" << P << " d=" << d;
                EXPECT_EQ(s.d[i], d) << "P=" << P;
                EXPECT_EQ(s.h[i], detail::tree_height(d, P)) << "P=" << P;
                ++i;
            }
        }
        EXPECT_EQ(i, s.n) << "P=" << P;
    }
    const detail::DegreeSteps s(12);
    ASSERT_EQ(s.n, 4);
    EXPECT_EQ(s.d[0], 1);
    EXPECT_EQ(s.d[1], 2);
    EXPECT_EQ(s.d[2], 3);
    EXPECT_EQ(s.d[3], 11);
}

TEST(SearchSpace, SegmentsSplitTheMessage) {
    using detail::segment_for;
    EXPECT_EQ(segment_for(10, 4, 1).m, 3u);
    EXPECT_EQ(segment_for(10, 4, 1).k, 4u);
    EXPECT_EQ(segment_for(10, 6, 1).m, 2u);  // ceil(10 / 6) = 2 -> only 5 segments
    EXPECT_EQ(segment_for(10, 6, 1).k, 5u);
    EXPECT_EQ(segment_for(4096, 3, 4).m, 1368u);  // ceil(4096 / 3) = 1366 -> multiple of 4
    EXPECT_EQ(segment_for(4096, 3, 4).k, 3u);
    EXPECT_EQ(segment_for(7, 100, 8).m, 7u);  // never larger than M
    EXPECT_EQ(segment_for(7, 100, 8).k, 1u);
}

TEST(SingleLayer, HeuristicNeverBetterThanExhaustive) {
    for (const PLogPParams& p : networks()) {
        for (std::uint64_t M : {1ull, 7ull, 1000ull, 65536ull, 1ull << 20}) {
            for (int P : {2, 3, 5, 12, 33, 100}) {
                SearchLimits lim;
                lim.max_segments = 4096;
                const SingleLayerChoice h = optimize_single_layer(M, P, p, Search::Heuristic, lim);
                const SingleLayerChoice x = optimize_single_layer(M, P, p, Search::Exhaustive, lim);
                EXPECT_GE(h.time, x.time) << "M=" << M << " P=" << P;
                for (const SingleLayerChoice& c : {h, x}) {
                    // The choice is a valid configuration and reproduces its predicted time.
                    ASSERT_GE(c.degree, 1);
                    ASSERT_LE(c.degree, P - 1);
                    EXPECT_EQ(c.segments, (M + c.segment - 1) / c.segment);
                    EXPECT_LE(c.segments, lim.max_segments);
                    EXPECT_DOUBLE_EQ(c.time, bcast_plogp_tree(p, P, double(M), double(c.segment), c.degree));
                }
            }
        }
    }
}

TEST(SingleLayer, ExhaustiveIsTheGlobalOptimum) {
    // Independent brute force over every segment size m in 1..M and every degree.
    const PLogPParams p = *model_fixtures::level().plogp;
    for (int P : {2, 6, 9}) {
        const std::uint64_t M = 64;
        double best = std::numeric_limits<double>::infinity();
        for (int m = 1; m <= 64; ++m)
            for (int d = 1; d < P; ++d) best = std::min(best, bcast_plogp_tree(p, P, double(M), m, d));
        const SingleLayerChoice x = optimize_single_layer(M, P, p, Search::Exhaustive);
        EXPECT_DOUBLE_EQ(x.time, best) << "P=" << P;
    }
}

TEST(SingleLayer, FindsOptimumOnSimpleCases) {
    // P = 2 with g(m) = o + m / B: T = k o + M / B + L, minimal for one segment.
    const PLogPParams link = plogp_from_link(20e-6, 50e6);
    const SingleLayerChoice two = optimize_single_layer(1 << 20, 2, link);
    EXPECT_EQ(two.segments, 1u);
    EXPECT_EQ(two.degree, 1);
    // A gap without per-byte cost: one segment, the flat tree.
    PLogPParams flatg;
    flatg.L = 10e-6;
    flatg.os = flatg.or_ = SizeFunction::constant(1e-6);
    flatg.g = SizeFunction::constant(2e-6);
    const SingleLayerChoice f = optimize_single_layer(1 << 20, 16, flatg);
    EXPECT_EQ(f.segments, 1u);
    EXPECT_DOUBLE_EQ(f.time, optimize_single_layer(1 << 20, 16, flatg, Search::Exhaustive).time);
    // The benchmark's case: P = 1024, M = 4 MiB on Boba finds the exhaustive optimum.
    const SingleLayerChoice h = optimize_single_layer(4u << 20, 1024, boba());
    const SingleLayerChoice x = optimize_single_layer(4u << 20, 1024, boba(), Search::Exhaustive);
    EXPECT_DOUBLE_EQ(h.time, x.time);
    EXPECT_LT(h.evaluations, 2000u);  // cheap enough for every MPI_Bcast
}

TEST(SingleLayer, NothingToSend) {
    const SingleLayerChoice z = optimize_single_layer(0, 8, boba());
    EXPECT_EQ(z.time, 0.0);
    EXPECT_EQ(z.segments, 0u);
    EXPECT_EQ(optimize_single_layer(1000, 1, boba()).time, 0.0);
}

TEST(SingleLayer, BadInput) {
    EXPECT_THROW(optimize_single_layer(1000, 0, boba()), Error);
    SearchLimits lim;
    lim.extent = 0;
    EXPECT_THROW(optimize_single_layer(1000, 8, boba(), Search::Heuristic, lim), Error);
    lim.extent = 1;
    lim.max_segments = 0;
    EXPECT_THROW(optimize_single_layer(1000, 8, boba(), Search::Heuristic, lim), Error);
}

TEST(SingleLayer, ExtentIsRespected) {
    SearchLimits lim;
    lim.extent = 8;
    for (Search s : {Search::Heuristic, Search::Exhaustive}) {
        const SingleLayerChoice c = optimize_single_layer(1 << 16, 64, boba(), s, lim);
        EXPECT_EQ(c.segment % 8, 0u);
    }
}

TEST(TwoLayer, HeuristicNeverBetterThanExhaustive) {
    const PLogPParams wan = plogp_from_link(10e-3, 1e6), lan = plogp_from_link(20e-6, 50e6);
    SearchLimits lim;
    lim.max_segments = 2048;
    SearchLimits unbounded = lim;
    unbounded.bound_lan_degree = false;
    for (std::uint64_t M : {1ull, 1000ull, 1ull << 16, 1ull << 20}) {
        for (int C : {2, 3, 8, 17}) {
            for (int S : {1, 2, 16}) {
                const TwoLayerChoice x = optimize_two_layer(M, C, S, wan, lan, Search::Exhaustive, lim);
                for (const SearchLimits& l : {lim, unbounded}) {
                    const TwoLayerChoice h = optimize_two_layer(M, C, S, wan, lan, Search::Heuristic, l);
                    EXPECT_GE(h.time, x.time) << "M=" << M << " C=" << C << " S=" << S;
                }
                for (const TwoLayerChoice& c : {optimize_two_layer(M, C, S, wan, lan, Search::Heuristic, lim), x}) {
                    ASSERT_GE(c.wan_degree, 1);
                    ASSERT_LE(c.wan_degree, C - 1);
                    ASSERT_EQ(c.lan_degree == 0, S == 1);
                    EXPECT_DOUBLE_EQ(c.time, bcast_two_layer_pipelined(wan, lan, C, S, double(M), double(c.segment),
                                                                       c.wan_degree, std::max(c.lan_degree, 1)));
                }
            }
        }
    }
}

TEST(TwoLayer, Sanity) {
    const PLogPParams wan = plogp_from_link(10e-3, 1e6), lan = plogp_from_link(20e-6, 50e6);
    // One cluster: the single-layer LAN optimum.
    const TwoLayerChoice one = optimize_two_layer(1 << 20, 1, 16, wan, lan);
    const SingleLayerChoice single = optimize_single_layer(1 << 20, 16, lan);
    EXPECT_EQ(one.time, single.time);
    EXPECT_EQ(one.wan_degree, 0);
    EXPECT_EQ(one.lan_degree, single.degree);
    // More clusters never make the optimum faster.
    SearchLimits lim;
    lim.max_segments = 1024;
    double prev = 0;
    for (int C = 2; C <= 12; ++C) {
        const double t = optimize_two_layer(1 << 16, C, 8, wan, lan, Search::Exhaustive, lim).time;
        EXPECT_GE(t, prev) << "C=" << C;
        prev = t;
    }
    // The optimised pipelined broadcast beats MagPIe's unsegmented sequential one for 4 MiB
    // (paper 000 Figure 4), and costs about M / B_w: the WAN links work in parallel.
    const TwoLayerChoice big = optimize_two_layer(4u << 20, 8, 16, wan, lan);
    EXPECT_LT(big.time, bcast_magpie_sequential(wan, lan, 8, 16, 4u << 20));
    EXPECT_LT(big.time, 1.05 * ((4u << 20) / 1e6 + 10e-3));
    EXPECT_GT(big.segments, 1u);
    // Nothing to send.
    EXPECT_EQ(optimize_two_layer(0, 4, 4, wan, lan).time, 0.0);
    EXPECT_THROW(optimize_two_layer(100, 0, 4, wan, lan), Error);
    EXPECT_THROW(optimize_two_layer(100, 4, 0, wan, lan), Error);
}

// SearchLimits::segment: that segment size only (capped at M), the degrees the best for it.
TEST(TwoLayer, AGivenSegmentIsKept) {
    const PLogPParams wan = plogp_from_link(10e-3, 1e6), lan = plogp_from_link(20e-6, 50e6);
    const std::uint64_t M = 4u << 20;
    const TwoLayerChoice free = optimize_two_layer(M, 4, 32, wan, lan);
    for (std::uint64_t seg : {std::uint64_t{65536}, std::uint64_t{262144}, std::uint64_t{8} << 20}) {
        SearchLimits lim;
        lim.segment = seg;
        const TwoLayerChoice c = optimize_two_layer(M, 4, 32, wan, lan, Search::Heuristic, lim);
        const std::uint64_t m = std::min(seg, M);
        EXPECT_EQ(c.segment, m);
        EXPECT_EQ(c.segments, (M + m - 1) / m);
        EXPECT_GE(c.time, free.time) << "seg=" << seg;
        for (int dw = 1; dw <= 3; ++dw)
            for (int dl = 1; dl <= 31; ++dl)
                EXPECT_LE(c.time, bcast_two_layer_pipelined(wan, lan, 4, 32, double(M), double(m), dw, dl) * (1 + 1e-12))
                    << "seg=" << seg << " d_w=" << dw << " d_l=" << dl;
    }
    EXPECT_NE(free.segment, 65536u);  // so that keeping it is a change
}

// SearchLimits::min_segment: no segment under it unless the message is smaller (twolayer's
// 64 KiB, MPI's eager limit), for both searches; and the free choice would go under it.
TEST(TwoLayer, MinimumSegmentIsRespected) {
    const PLogPParams wan = plogp_from_link(10e-3, 1e6), lan = plogp_from_link(20e-6, 50e6);
    SearchLimits lim;
    lim.min_segment = 65536;
    lim.max_segments = 4096;
    for (std::uint64_t M : {std::uint64_t{1000}, std::uint64_t{65536}, std::uint64_t{100000}, std::uint64_t{4} << 20}) {
        for (Search s : {Search::Heuristic, Search::Exhaustive}) {
            const TwoLayerChoice c = optimize_two_layer(M, 4, 32, wan, lan, s, lim);
            EXPECT_GE(c.segment, std::min<std::uint64_t>(M, 65536)) << "M=" << M;
        }
    }
    EXPECT_LT(optimize_two_layer(4u << 20, 4, 32, wan, lan).segment, 65536u);
    SearchLimits fixed;
    fixed.segment = 65536;
    EXPECT_THROW(optimize_two_layer(4u << 20, 4, 32, wan, lan, Search::Exhaustive, fixed), Error);
}
