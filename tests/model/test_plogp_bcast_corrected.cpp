// Corrected PLogP broadcast closed forms (model::predict_corrected, algorithms/model/
// plogp_bcast_corrected.cpp) against hand computations. Numbers in microseconds: L = 10,
// g = 3 (constant, so segment sizes do not matter unless said), os = 1, or = 2, unless a test
// says otherwise. (Agreement with the event simulator: tests/sim/test_event_sim.cpp.)
#include <gtest/gtest.h>

#include <cmath>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"

using namespace gridcoll;
using namespace gridcoll::model;

namespace {

constexpr double us = 1e-6;

LevelParams level(double L, double g, double os, double or_) {
    PLogPParams p;
    p.L = L * us;
    p.g = SizeFunction::constant(g * us);
    p.os = SizeFunction::constant(os * us);
    p.or_ = SizeFunction::constant(or_ * us);
    LevelParams l;
    l.level = "lan";
    l.plogp = p;
    return l;
}

// n segments of 1000 bytes.
double T(std::string_view alg, int P, int n, const LevelParams& l, int fanout = 2, double seg = 1000) {
    const auto t = predict_corrected(Collective::Bcast, alg, P, n * seg, n > 1 ? seg : 0.0, fanout, l);
    EXPECT_TRUE(t.has_value()) << alg;
    return t.value_or(-1) / us;
}

}  // namespace

// Binary tree over 5 ranks: 0 -> {1, 2}, 1 -> {3, 4}. First segment: rank 4 is rank 1's second
// child: (L + g) + (L + 2 g) = 2 L + 3 g = 29 (rank 2: L + 2 g = 16, rank 3: 2 L + 2 g = 26).
// Per further segment: root 2 g = 6, rank 1 max{2 g, or + g + os} = max{6, 6}.
TEST(CorrectedBcast, BinaryPartialTreeByHand) {
    const LevelParams l = level(10, 3, 1, 2);
    EXPECT_NEAR(T("binary", 5, 1, l), 29, 1e-9);
    EXPECT_NEAR(T("binary", 5, 4, l), 29 + 3 * 6, 1e-9);
    // CPU-bound inner node: or + g + os = 3 + 3 + 2 = 8 > 2 g.
    const LevelParams cpu = level(10, 3, 2, 3);
    EXPECT_NEAR(T("binary", 5, 4, cpu), 29 + 3 * 8, 1e-9);
    // The published row charges (ceil(log2 6) - 1) = 2 levels of L + 2 g: 32 (an upper bound).
    EXPECT_NEAR(*predict(Model::PLogP, Collective::Bcast, "binary", 5, 1000, 0, 2, l) / us, 32, 1e-9);
}

// Binary tree over 32 ranks: levels of 1, 2, 4, 8, 16 and one rank (31) at depth 5, reached
// through first children only: 5 L + 5 g; the deepest full level's last rank (30): 4 (L + 2 g).
TEST(CorrectedBcast, BinaryThirtyTwoRanksBothBranches) {
    EXPECT_NEAR(T("binary", 32, 1, level(10, 3, 1, 2)), 5 * 10 + 5 * 3, 1e-9);          // 65 > 64
    EXPECT_NEAR(T("binary", 32, 1, level(10, 4, 1, 2)), 4 * (10 + 2 * 4), 1e-9);        // 72 > 70
    EXPECT_NEAR(T("binary", 32, 3, level(10, 4, 1, 2)), 4 * (10 + 2 * 4) + 2 * 8, 1e-9);
}

// Full binary trees: the corrected form is paper 002's row.
TEST(CorrectedBcast, FullBinaryTreeIsThePublishedRow) {
    const LevelParams l = level(10, 3, 2, 3);
    for (int P : {7, 15, 63})
        for (int n : {1, 2, 9}) {
            const double published = *predict(Model::PLogP, Collective::Bcast, "binary", P, n * 1000.0,
                                              n > 1 ? 1000.0 : 0.0, 2, l) / us;
            EXPECT_NEAR(T("binary", P, n, l), published, 1e-9) << "P=" << P << " n=" << n;
        }
}

// 4-ary tree over 32 ranks: levels 1, 4, 16 and 11 ranks (21..31) at depth 3. Their offsets
// 0..10 in base 4 have at most digit sum 4 (7 = "013", 10 = "022"): rank 28 (offset 7) is
// reached through positions 1, 2, 4: 3 L + 7 g = 51 > 2 (L + 4 g) = 44 (rank 20).
// Per further segment: root 4 g = 12, rank 1 (4 children) max{4 g, or + 3 g + os} = 12.
TEST(CorrectedBcast, KaryPartialTreeByHand) {
    const LevelParams l = level(10, 3, 1, 2);
    EXPECT_NEAR(T("kary", 32, 1, l, 4), 51, 1e-9);
    EXPECT_NEAR(T("kary", 32, 3, l, 4), 51 + 2 * 12, 1e-9);
    // 3-ary tree over 6 ranks: 0 -> {1, 2, 3}, 1 -> {4, 5}: rank 5 at (L + g) + (L + 2 g) = 29,
    // rank 3 at L + 3 g = 19. Per segment: root 3 g = 9, rank 1 (2 children) max{6, 6}.
    EXPECT_NEAR(T("kary", 6, 1, l, 3), 29, 1e-9);
    EXPECT_NEAR(T("kary", 6, 5, l, 3), 29 + 4 * 9, 1e-9);
}

// d >= P - 1: paper 000's flat tree, exact: L + (P - 1) g, then (P - 1) g per segment.
TEST(CorrectedBcast, FlatTreeIsPaper000) {
    const LevelParams l = level(10, 3, 1, 2);
    EXPECT_NEAR(T("kary", 5, 1, l, 4), 10 + 4 * 3, 1e-9);
    EXPECT_NEAR(T("kary", 5, 6, l, 8), 10 + 4 * 3 + 5 * 12, 1e-9);
    for (int n : {1, 6}) {
        const double published = *predict(Model::PLogP, Collective::Bcast, "kary", 5, n * 1000.0, n > 1 ? 1000.0 : 0.0, 4, l);
        EXPECT_NEAR(T("kary", 5, n, l, 4), published / us, 1e-9);
    }
}

// Splitted-binary over 7 ranks, 4 segments (two per half): side trees {1, 2, 3} and {4, 5, 6}
// (each a root with two children). Tree phase: left leaf 3 at (L + g) + (L + 2 g), right leaf 6
// at (L + 2 g) + (L + 2 g) = 2 L + 4 g = 32; one more segment: gamma = max{2 g, or + g + os} =
// 6. Final exchange: L + 2 g = 16. T = 32 + 6 + 16 = 54.
TEST(CorrectedBcast, SplittedBinaryByHand) {
    const LevelParams l = level(10, 3, 1, 2);
    EXPECT_NEAR(T("splitted-binary", 7, 4, l), 54, 1e-9);
    // 4 ranks, two segments per half: left side {1, 2} (1 -> 2), right side {3}, rank 2 (the
    // last left node) unpaired. The root sends left0, right0, left1, right1 (arriving at 13, 16,
    // 19, 22), then the unpaired rank's right half (arriving at 25, 28). Paired tree phases end
    // at 22: rank 3's last arrival, and rank 1's port after its last send to rank 2 (19 + g);
    // gamma = max{2 g, rank 1's cycle max{g, or + os}} = 6. Exchange: 16 + 6 + L + 2 g = 38.
    // Rank 2: its half by 2 (L + g) + gamma = 32, then the root's two messages (already in) at
    // or each: 36; the root's last one arrives at L + 3 * 2 g = 28.
    EXPECT_NEAR(T("splitted-binary", 4, 4, l), 38, 1e-9);
    // 2 ranks: the root sends both halves (2 segments each) to rank 1: L + 4 g.
    EXPECT_NEAR(T("splitted-binary", 2, 4, l), 10 + 4 * 3, 1e-9);
    // 3 ranks, one segment per half: L + 2 g = 16 (right), exchange L + g: 29.
    EXPECT_NEAR(T("splitted-binary", 3, 2, l), 29, 1e-9);
}

// An unsegmented message is split into halves of m/2 bytes: g(m/2), not g(m), is what each
// message costs. g(m) = 1 + m / 100 us: m = 2000 -> halves of 1000 bytes, g = 11.
// 7 ranks: tree phase 2 L + 4 g = 64, exchange L + g = 21: 85.
TEST(CorrectedBcast, SplittedBinaryUsesHalves) {
    LevelParams l = level(10, 3, 1, 2);
    l.plogp->g = SizeFunction::affine(1 * us, 0.01 * us);
    const auto t = predict_corrected(Collective::Bcast, "splitted-binary", 7, 2000, 0, 2, l);
    ASSERT_TRUE(t.has_value());
    EXPECT_NEAR(*t / us, 85, 1e-9);
    // A segment larger than a half is a half.
    EXPECT_NEAR(*predict_corrected(Collective::Bcast, "splitted-binary", 7, 2000, 1500, 2, l) / us, 85, 1e-9);
}

// The other broadcasts are the published rows; other collectives and models have no variant.
TEST(CorrectedBcast, OthersArePublishedRowsAndErrorsAreClear) {
    const LevelParams l = level(10, 3, 1, 2);
    for (const char* alg : {"binomial", "pipeline", "linear"})
        EXPECT_EQ(predict_corrected(Collective::Bcast, alg, 9, 4000, 1000, 2, l),
                  predict(Model::PLogP, Collective::Bcast, alg, 9, 4000, 1000, 2, l))
            << alg;
    EXPECT_FALSE(predict_corrected(Collective::Reduce, "binary", 9, 4000, 1000, 2, l).has_value());
    EXPECT_FALSE(predict_corrected(Collective::Bcast, "kchain", 9, 4000, 1000, 2, l).has_value());
    EXPECT_EQ(*predict_corrected(Collective::Bcast, "binary", 9, 0, 0, 2, l), 0.0);
    EXPECT_EQ(*predict_corrected(Collective::Bcast, "binary", 1, 4000, 0, 2, l), 0.0);
    EXPECT_THROW(predict_corrected(Collective::Bcast, "nosuch", 9, 4000, 0, 2, l), Error);
    EXPECT_THROW(predict_corrected(Collective::Bcast, "kary", 9, 4000, 0, 0, l), Error);
    LevelParams none;
    none.level = "wan";
    EXPECT_THROW(predict_corrected(Collective::Bcast, "binary", 9, 4000, 0, 2, none), Error);
}
