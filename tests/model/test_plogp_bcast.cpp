// Paper 000 (Kielmann, Bal, Gorlatch) P-LogP broadcast closed forms (algorithms/model/
// plogp_bcast.cpp): single-layer T = (k - 1) gamma + lambda (flat tree exact, d-ary bounds),
// the sequential MagPIe composition and the pipelined two-layer broadcast, against hand
// computations (numbers in microseconds).
#include <gtest/gtest.h>

#include "gridcoll/algorithms/model/plogp_kernel.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/model/derive.hpp"
#include "model_fixtures.hpp"

using namespace gridcoll;
using namespace gridcoll::model;
using model_fixtures::us;

namespace {

double rel(double e) { return 1e-9 * e; }

// DAS-like (paper 000 §2) with o = 1 us: g_w(m) = 1 + m us, g_l(m) = 1 + m / 50 us.
const PLogPParams& wan() {
    static const PLogPParams p = plogp_from_link(10e-3, 1e6, 1e-6);
    return p;
}
const PLogPParams& lan() {
    static const PLogPParams p = plogp_from_link(20e-6, 50e6, 1e-6);
    return p;
}

}  // namespace

TEST(TreeHeight, MinimalHeight) {
    using detail::tree_height;
    EXPECT_EQ(tree_height(2, 1), 0);
    EXPECT_EQ(tree_height(1, 12), 11);  // chain
    EXPECT_EQ(tree_height(2, 12), 3);   // 1 + 2 + 4 = 7 < 12 <= 15
    EXPECT_EQ(tree_height(3, 12), 2);   // 1 + 3 + 9 = 13
    EXPECT_EQ(tree_height(11, 12), 1);  // flat
    EXPECT_EQ(tree_height(2, 1024), 10);
    EXPECT_EQ(tree_height(3, 1024), 6);  // (3^7 - 1) / 2 = 1093
    EXPECT_EQ(tree_height(1000000, 2000000000), 2);
}

TEST(PLogPTree, DaryBounds) {
    // fixture PLogP at m = 1024: g = 24, or = 12, L = 38.017; M = 4096 -> k = 4; P = 12.
    const PLogPParams p = *model_fixtures::level().plogp;
    // d = 3, h = 2: gamma = max(24, 12 + 3 * 24) = 84, lambda = 2 ((3 - 1) 24 + 38.017 + 24)
    double e = 3 * 84 + 2 * (2 * 24 + 38.017 + 24);
    EXPECT_NEAR(bcast_plogp_tree(p, 12, 4096, 1024, 3), e * us, rel(e * us));
    // d = 2, h = 3: gamma = max(24, 12 + 48) = 60, lambda = 3 (24 + 62.017)
    e = 3 * 60 + 3 * (24 + 62.017);
    EXPECT_NEAR(bcast_plogp_tree(p, 12, 4096, 1024, 2), e * us, rel(e * us));
    // d = 1 (chain), h = 11: gamma = max(24, 12 + 24) = 36, lambda = 11 (0 + 62.017)
    e = 3 * 36 + 11 * 62.017;
    EXPECT_NEAR(bcast_plogp_tree(p, 12, 4096, 1024, 1), e * us, rel(e * us));
    // Through predict("kary"): the same.
    EXPECT_NEAR(*predict(Model::PLogP, Collective::Bcast, "kary", 12, 4096, 1024, 3, model_fixtures::level()),
                bcast_plogp_tree(p, 12, 4096, 1024, 3), 1e-15);
}

TEST(PLogPTree, FlatTreeIsExactAndEqualsLinear) {
    const PLogPParams p = *model_fixtures::level().plogp;
    // flat: gamma = max(g, (P - 1) s) = 11 * 24 = 264, lambda = (P - 2) s + r = 10 * 24 + 62.017
    const double e = 3 * 264 + (10 * 24 + 38.017 + 24);
    EXPECT_NEAR(bcast_plogp_tree(p, 12, 4096, 1024, 11), e * us, rel(e * us));
    EXPECT_NEAR(bcast_plogp_tree(p, 12, 4096, 1024, 50), e * us, rel(e * us));  // degree clamped to P - 1
    // Paper 002's linear PLogP row, L + n_s (P - 1) g(m_s), is the same number when s = g.
    EXPECT_NEAR(*predict(Model::PLogP, Collective::Bcast, "linear", 12, 4096, 1024, 0, model_fixtures::level()),
                e * us, rel(e * us));
    EXPECT_EQ(bcast_plogp_tree(p, 1, 4096, 1024, 3), 0.0);
    EXPECT_THROW(bcast_plogp_tree(p, 12, 4096, 1024, 0), Error);
    EXPECT_THROW(bcast_plogp_tree(p, 0, 4096, 1024, 1), Error);
}

TEST(TwoLayer, Pipelined) {
    // m = 1000: g_w = 1001, or_w = 1, s_w = max(g_l, os_w) = 21, r_w = 10000 + 1001;
    //           g_l = s_l = 21, r_l = 41. C = 4, S = 8, M = 4000 -> k = 4; d_w = 3 (h_w = 1),
    //           d_l = 2 (h_l = 3).
    // gamma = max(1001, 1 + 3 * 21 + 2 * 21) = 1001; lambda_w = 1 (2 * 21 + 11001);
    // lambda_l = 3 (1 * 21 + 41).
    double e = 3 * 1001 + (2 * 21 + 11001) + 3 * (21 + 41);
    EXPECT_NEAR(bcast_two_layer_pipelined(wan(), lan(), 4, 8, 4000, 1000, 3, 2), e * us, rel(e * us));
    // Clusters of one process: no LAN part.
    e = 3 * 1001 + (2 * 21 + 11001);
    EXPECT_NEAR(bcast_two_layer_pipelined(wan(), lan(), 4, 1, 4000, 1000, 3, 2), e * us, rel(e * us));
    // gamma bound by the coordinator: C = 40 flat (d_w = 39, h_w = 1), S = 13 flat (d_l = 12,
    // h_l = 1): gamma = max(1001, 1 + 39 * 21 + 12 * 21) = 1072.
    e = 3 * (1 + 39 * 21 + 12 * 21) + (38 * 21 + 11001) + 1 * (11 * 21 + 41);
    EXPECT_NEAR(bcast_two_layer_pipelined(wan(), lan(), 40, 13, 4000, 1000, 39, 12), e * us, rel(e * us));
    // One cluster: the single-layer LAN tree.
    EXPECT_NEAR(bcast_two_layer_pipelined(wan(), lan(), 1, 8, 4000, 1000, 3, 2),
                bcast_plogp_tree(lan(), 8, 4000, 1000, 2), 1e-15);
}

TEST(TwoLayer, SequentialMagPIe) {
    // Unsegmented, m = 4000: g_w = 4001, s_w = max(g_l = 81, 1) = 81, r_w = 14001.
    // Flat WAN over C = 4: lambda = 2 * 81 + 14001; binomial LAN over 8: 3 (20 + 81).
    double e = (2 * 81 + 14001) + 3 * (20 + 81);
    EXPECT_NEAR(bcast_magpie_sequential(wan(), lan(), 4, 8, 4000), e * us, rel(e * us));
    // Segmented, m = 1000, k = 4: WAN 3 max(1001, 3 * 21) + (2 * 21 + 11001); LAN 3 (20 + 4 * 21).
    e = 3 * 1001 + (2 * 21 + 11001) + 3 * (20 + 4 * 21);
    EXPECT_NEAR(bcast_magpie_sequential(wan(), lan(), 4, 8, 4000, 1000), e * us, rel(e * us));
}

TEST(TwoLayer, SequentialDary) {
    // WAN: m = 1000 (k = 4), chain d_w = 1 over 4 (h = 3): gamma = max(1001, 1 + 21),
    //      lambda = 3 (0 + 11001). LAN: m = 500 (k = 8), flat over 8: g_l = 11,
    //      gamma = max(11, 7 * 11) = 77, lambda = 6 * 11 + 20 + 11.
    const double e = (3 * 1001 + 3 * 11001) + (7 * 77 + 6 * 11 + 31);
    EXPECT_NEAR(bcast_two_layer_sequential(wan(), lan(), 4, 8, 4000, 1000, 1, 500, 7), e * us, rel(e * us));
}

TEST(TwoLayer, PipeliningBeatsMagPIeForLargeMessages) {
    // Paper 000 §3.3: "For larger messages, however, the new algorithm is much faster".
    const double M = 4 << 20;
    const double magpie = bcast_magpie_sequential(wan(), lan(), 4, 16, M);
    const double pipelined = bcast_two_layer_pipelined(wan(), lan(), 4, 16, M, 8192, 3, 2);
    EXPECT_LT(pipelined, magpie);
}
