// Derived parameters (algorithms/model/derive.cpp): LogGP and Hockney from PLogP (paper 002
// §3.1, §6.1; Kielmann et al.'s logp_mpi conventions) and PLogP from a link.
#include <gtest/gtest.h>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/derive.hpp"

using namespace gridcoll;
using namespace gridcoll::model;

namespace {

constexpr double us = 1e-6;

// The PLogP parameters behind Boba's LogGP values (paper 002 Table 5): L = 30.40 + 2 * 8.15 -
// 8.683 = 38.017 us, os = or = 8.15 us, g(m) = 8.683 us + (m - 1) * 0.015 us.
PLogPParams boba_plogp() {
    PLogPParams p;
    p.L = 38.017 * us;
    p.os = SizeFunction::constant(8.15 * us);
    p.or_ = SizeFunction::constant(8.15 * us);
    p.g = SizeFunction({{1, 8.683 * us}, {65537, 8.683 * us + 65536 * 0.015 * us}});
    return p;
}

}  // namespace

TEST(Derive, LogGPFromPLogPGivesTable5) {
    const LogGPParams q = loggp_from_plogp(boba_plogp());
    EXPECT_NEAR(q.L, 30.40 * us, 1e-15);  // L + g(1) - os(1) - or(1) = 38.017 + 8.683 - 16.3
    EXPECT_NEAR(q.o, 8.15 * us, 1e-15);   // (os(1) + or(1)) / 2
    EXPECT_NEAR(q.g, 8.683 * us, 1e-15);  // g(1)
    EXPECT_NEAR(q.G, 0.015 * us, 1e-18);  // slope of g's last segment
}

TEST(Derive, LogGPAgreesWithPLogPOnLinearGap) {
    // PLogP L + g(m) == LogGP L + 2o + (m - 1) G for every m >= 1 when g is linear (002 §3.1).
    const PLogPParams p = boba_plogp();
    const LogGPParams q = loggp_from_plogp(p);
    for (double m : {1.0, 100.0, 4096.0, 1e6})
        EXPECT_NEAR(p.L + p.g(m), q.L + 2 * q.o + (m - 1) * q.G, 1e-15) << m;
}

TEST(Derive, LogGPLatencyClampedAtZero) {
    PLogPParams p;
    p.L = 1 * us;
    p.os = SizeFunction::constant(5 * us);
    p.or_ = SizeFunction::constant(5 * us);
    p.g = SizeFunction::constant(6 * us);
    EXPECT_EQ(loggp_from_plogp(p).L, 0.0);  // 1 + 6 - 10 < 0
    EXPECT_EQ(loggp_from_plogp(p).G, 0.0);  // one point: no slope
}

TEST(Derive, HockneyFromPLogPMatchesMessageTime) {
    PLogPParams p;
    p.L = 20 * us;
    p.os = SizeFunction::constant(1 * us);
    p.or_ = SizeFunction::constant(1 * us);
    p.g = SizeFunction({{64, 3 * us}, {1024, 5 * us}, {65536, 1000 * us}});
    const HockneyParams h = hockney_from_plogp(p);
    const double G = (1000.0 - 5.0) * us / (65536 - 1024);
    EXPECT_DOUBLE_EQ(h.beta(0), G);
    EXPECT_DOUBLE_EQ(h.beta(1e7), G);
    EXPECT_NEAR(h.alpha(0), 20 * us + 3 * us, 1e-15);  // L + g(0): the zero-byte message
    for (double m : {0.0, 10.0, 64.0, 500.0, 1024.0, 30000.0, 65536.0, 1e6})
        EXPECT_NEAR(h.time(m), p.L + p.g(m), 1e-13) << m;
}

TEST(Derive, PLogPFromLink) {
    const PLogPParams p = plogp_from_link(10e-3, 1e6, 2 * us);
    EXPECT_EQ(p.L, 10e-3);
    EXPECT_EQ(p.os(12345), 2 * us);
    EXPECT_EQ(p.or_(0), 2 * us);
    EXPECT_NEAR(p.g(0), 2 * us, 1e-18);
    EXPECT_NEAR(p.g(1e6), 2 * us + 1.0, 1e-12);  // 1 MB at 1 MB/s
    EXPECT_NEAR(p.r(1000), 10e-3 + 2 * us + 1e-3, 1e-15);
    EXPECT_NEAR(plogp_from_link(20 * us, 50e6).g(0), kDefaultLinkOverhead, 1e-18);

    EXPECT_THROW(plogp_from_link(-1, 1e6), Error);
    EXPECT_THROW(plogp_from_link(1e-3, 0), Error);
    EXPECT_THROW(plogp_from_link(1e-3, 1e6, -1e-6), Error);
}

TEST(Derive, LevelFromLinkHasAllModels) {
    const LevelParams l = level_from_link("wan", 10e-3, 1e6, 1 * us);
    EXPECT_EQ(l.level, "wan");
    ASSERT_TRUE(l.plogp && l.loggp && l.hockney);
    EXPECT_NEAR(l.loggp->G, 1e-6, 1e-18);
    EXPECT_NEAR(l.loggp->o, 1 * us, 1e-18);
    EXPECT_NEAR(l.loggp->L, 10e-3, 1e-15);  // L + g(1) - 2o = 10 ms + (1 us + 1 us/B * 1 B) - 2 us
    EXPECT_NEAR(l.hockney->time(5000), l.plogp->L + l.plogp->g(5000), 1e-15);
}
