// Closed forms of paper 002 Tables 1-4 (algorithms/model/closed_forms_*.cpp): every formula
// against a hand computation of the paper's formula on the fixed parameters of
// model_fixtures.hpp (all numbers in microseconds, then scaled). P = 12 unless stated:
// ceil(log2 12) = 4, floor(log2 12) = 3, H = ceil(log2 13) = 4. Segmented cases: m = 4096 bytes
// in m_s = 1024 byte segments, n_s = 4.
// At m_s = 1024: Hockney alpha = 60, beta = 0.01, t = 70.24; PLogP g = 24, os = 10, or = 12;
// LogGP (Boba, Table 5) L = 30.40, o = 8.15, g = 8.683, G = 0.015, (m_s - 1) G = 15.345.
#include <gtest/gtest.h>

#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "model_fixtures.hpp"

using namespace gridcoll;
using namespace gridcoll::model;
using model_fixtures::tol;
using model_fixtures::us;

namespace {

double T(Model model, Collective c, const char* alg, int P, double bytes, double seg, double gamma = 0,
         int fanout = 2) {
    const auto t = predict(model, c, alg, P, bytes, seg, fanout, model_fixtures::level(), gamma);
    EXPECT_TRUE(t.has_value()) << alg;
    return t.value_or(-1);
}

constexpr auto H = Model::Hockney;
constexpr auto G = Model::LogGP;
constexpr auto PL = Model::PLogP;

}  // namespace

// ---- Table 1: barrier (zero-byte messages) -----------------------------------------------------

TEST(Table1Barrier, Hockney) {
    const double a = 50;  // alpha(0)
    double e = 11 * a;
    EXPECT_NEAR(T(H, Collective::Barrier, "flat", 12, 0, 0), e * us, tol(e * us));
    e = 2 * 12 * a;
    EXPECT_NEAR(T(H, Collective::Barrier, "double-ring", 12, 0, 0), e * us, tol(e * us));
    e = 3 * a;  // P = 8: log2 8
    EXPECT_NEAR(T(H, Collective::Barrier, "recursive-doubling", 8, 0, 0), e * us, tol(e * us));
    e = (3 + 2) * a;  // P = 12: floor(log2 12) + 2
    EXPECT_NEAR(T(H, Collective::Barrier, "recursive-doubling", 12, 0, 0), e * us, tol(e * us));
    e = 4 * a;
    EXPECT_NEAR(T(H, Collective::Barrier, "bruck", 12, 0, 0), e * us, tol(e * us));
}

TEST(Table1Barrier, LogGP) {
    const double step = 30.40 + 8.15 + 8.683;  // L + o + g
    double e = (12 - 2) * 8.683 + 2 * (30.40 + 2 * 8.15);  // T_min
    EXPECT_NEAR(T(G, Collective::Barrier, "flat", 12, 0, 0), e * us, tol(e * us));
    e = 2 * 12 * step;
    EXPECT_NEAR(T(G, Collective::Barrier, "double-ring", 12, 0, 0), e * us, tol(e * us));
    e = 3 * step;
    EXPECT_NEAR(T(G, Collective::Barrier, "recursive-doubling", 8, 0, 0), e * us, tol(e * us));
    e = 5 * step;
    EXPECT_NEAR(T(G, Collective::Barrier, "recursive-doubling", 12, 0, 0), e * us, tol(e * us));
    e = 4 * step;
    EXPECT_NEAR(T(G, Collective::Barrier, "bruck", 12, 0, 0), e * us, tol(e * us));
}

TEST(Table1Barrier, PLogP) {
    const double step = 38.017 + 8.683;  // L + g(0)
    double e = 12 * 8.683 + 2 * 38.017;  // T_min = P g + 2 L
    EXPECT_NEAR(T(PL, Collective::Barrier, "flat", 12, 0, 0), e * us, tol(e * us));
    e = 2 * 12 * step;
    EXPECT_NEAR(T(PL, Collective::Barrier, "double-ring", 12, 0, 0), e * us, tol(e * us));
    e = 3 * step;
    EXPECT_NEAR(T(PL, Collective::Barrier, "recursive-doubling", 8, 0, 0), e * us, tol(e * us));
    e = 5 * step;
    EXPECT_NEAR(T(PL, Collective::Barrier, "recursive-doubling", 12, 0, 0), e * us, tol(e * us));
    e = 4 * step;
    EXPECT_NEAR(T(PL, Collective::Barrier, "bruck", 12, 0, 0), e * us, tol(e * us));
}

// ---- Table 2: broadcast ------------------------------------------------------------------------

TEST(Table2Bcast, Hockney) {
    const double t = 60 + 1024 * 0.01;    // 70.24
    const double t2 = 2 * 60 + 1024 * 0.01;  // 2 alpha + m_s beta = 130.24
    double e = 4 * 11 * t;
    EXPECT_NEAR(T(H, Collective::Bcast, "linear", 12, 4096, 1024), e * us, tol(e * us));
    e = (12 + 4 - 2) * t;
    EXPECT_NEAR(T(H, Collective::Bcast, "pipeline", 12, 4096, 1024), e * us, tol(e * us));
    e = 4 * 4 * t;
    EXPECT_NEAR(T(H, Collective::Bcast, "binomial", 12, 4096, 1024), e * us, tol(e * us));
    e = (4 + 4 - 2) * t2;
    EXPECT_NEAR(T(H, Collective::Bcast, "binary", 12, 4096, 1024), e * us, tol(e * us));
    e = (4 + 2 - 2) * t2 + (55 + 512 * 0.015);  // + alpha(m_s/2) + (m_s/2) beta(m_s/2)
    EXPECT_NEAR(T(H, Collective::Bcast, "splitted-binary", 12, 4096, 1024), e * us, tol(e * us));
    e = 1 * 11 * t;  // unsegmented: n_s = 1, m_s = m
    EXPECT_NEAR(T(H, Collective::Bcast, "linear", 12, 1024, 0), e * us, tol(e * us));
}

TEST(Table2Bcast, LogGP) {
    const double L = 30.40, o = 8.15, g = 8.683, gm = 1023 * 0.015;
    double e = L + 2 * o - g + 4 * 11 * (gm + g);
    EXPECT_NEAR(T(G, Collective::Bcast, "linear", 12, 4096, 1024), e * us, tol(e * us));
    e = 11 * (L + 2 * o + gm) + 3 * (g + gm);
    EXPECT_NEAR(T(G, Collective::Bcast, "pipeline", 12, 4096, 1024), e * us, tol(e * us));
    e = 4 * (L + 2 * o + gm + 3 * (g + gm));
    EXPECT_NEAR(T(G, Collective::Bcast, "binomial", 12, 4096, 1024), e * us, tol(e * us));
    e = 3 * (L + 2 * (o + gm + g)) + 2 * 3 * (gm + g);
    EXPECT_NEAR(T(G, Collective::Bcast, "binary", 12, 4096, 1024), e * us, tol(e * us));
    e = 3 * (L + g + 2 * (o + gm)) + 2 * (2 - 1) * (g + gm) + L + 2 * o + 511 * 0.015;
    EXPECT_NEAR(T(G, Collective::Bcast, "splitted-binary", 12, 4096, 1024), e * us, tol(e * us));
    e = 0 + 3 * (L + 2 * (o + 0 + g));  // one 1-byte message, no (m - 1) G
    EXPECT_NEAR(T(G, Collective::Bcast, "binary", 12, 1, 0), e * us, tol(e * us));
}

TEST(Table2Bcast, PLogP) {
    const double L = 38.017, g = 24, os = 10, or_ = 12;
    double e = L + 4 * 11 * g;
    EXPECT_NEAR(T(PL, Collective::Bcast, "linear", 12, 4096, 1024), e * us, tol(e * us));
    e = 11 * (L + g) + 3 * g;
    EXPECT_NEAR(T(PL, Collective::Bcast, "pipeline", 12, 4096, 1024), e * us, tol(e * us));
    e = 4 * (L + 4 * g);
    EXPECT_NEAR(T(PL, Collective::Bcast, "binomial", 12, 4096, 1024), e * us, tol(e * us));
    e = 3 * (L + 2 * g) + 3 * std::max(2 * g, or_ + g + os);  // max picks 2g = 48 over 46
    EXPECT_NEAR(T(PL, Collective::Bcast, "binary", 12, 4096, 1024), e * us, tol(e * us));
    e = 3 * (L + 2 * 16) + 3 * (10.5 + 16 + 9);  // m_s = 512: g = 16, os = 9, or = 10.5; max picks 35.5
    EXPECT_NEAR(T(PL, Collective::Bcast, "binary", 12, 2048, 512), e * us, tol(e * us));
    e = 3 * (L + 2 * g) + (2 - 1) * 2 * g;
    EXPECT_NEAR(T(PL, Collective::Bcast, "splitted-binary", 12, 4096, 1024), e * us, tol(e * us));
}

TEST(Table2Bcast, SegmentCountRoundsUp) {
    // m = 4097 in 1024-byte segments: n_s = ceil(4097 / 1024) = 5.
    const double e = 38.017 + 5 * 11 * 24;
    EXPECT_NEAR(T(PL, Collective::Bcast, "linear", 12, 4097, 1024), e * us, tol(e * us));
}

// ---- Table 3: reduce ---------------------------------------------------------------------------

TEST(Table3Reduce, Hockney) {
    const double gamma = 0.001 * us, c = 1.024;  // gamma m_s = 1.024 us
    const double t = 60 + 0.01 * 1024 + c;
    double e = 4 * 11 * t;
    EXPECT_NEAR(T(H, Collective::Reduce, "flat", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = (12 + 4 - 2) * t;
    EXPECT_NEAR(T(H, Collective::Reduce, "pipeline", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 4 * 4 * t;
    EXPECT_NEAR(T(H, Collective::Reduce, "binomial", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 2 * (4 + 4 - 2) * t;
    EXPECT_NEAR(T(H, Collective::Reduce, "binary", 12, 4096, 1024, gamma), e * us, tol(e * us));
}

TEST(Table3Reduce, LogGP) {
    const double gamma = 0.001 * us, c = 1.024;
    const double L = 30.40, o = 8.15, g = 8.683, gm = 1023 * 0.015;
    double e = o + gm + L + 4 * std::max(g, 11 * (o + gm + c));
    EXPECT_NEAR(T(G, Collective::Reduce, "flat", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 11 * (L + 2 * o + gm + c) + 3 * std::max(g, 2 * o + gm + c);
    EXPECT_NEAR(T(G, Collective::Reduce, "pipeline", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 4 * (o + L + 4 * (gm + (o + c)));  // max{g, o + c} = max{8.683, 9.174}
    EXPECT_NEAR(T(G, Collective::Reduce, "binomial", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 3 * (L + 3 * o + gm + 2 * c) + 3 * (gm + (3 * o + 2 * c));
    EXPECT_NEAR(T(G, Collective::Reduce, "binary", 12, 4096, 1024, gamma), e * us, tol(e * us));
}

TEST(Table3Reduce, PLogP) {
    const double gamma = 0.001 * us, c = 1.024;
    const double L = 38.017, g = 24, os = 10, or_ = 12;
    const double x = std::max(g, or_ + c);  // 24
    double e = L + 11 * 4 * x;
    EXPECT_NEAR(T(PL, Collective::Reduce, "flat", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 11 * (L + x) + 3 * (x + os);
    EXPECT_NEAR(T(PL, Collective::Reduce, "pipeline", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 4 * (L + 4 * std::max(g, or_ + c + os));  // max{24, 23.024}
    EXPECT_NEAR(T(PL, Collective::Reduce, "binomial", 12, 4096, 1024, gamma), e * us, tol(e * us));
    e = 3 * (L + 2 * x) + 3 * (os + 2 * x);
    EXPECT_NEAR(T(PL, Collective::Reduce, "binary", 12, 4096, 1024, gamma), e * us, tol(e * us));
    // Computation-bound: gamma = 0.02 us/B, c = 20.48 us, max{24, 12 + 20.48} = 32.48.
    e = L + 11 * 4 * 32.48;
    EXPECT_NEAR(T(PL, Collective::Reduce, "flat", 12, 4096, 1024, 0.02 * us), e * us, tol(e * us));
}

// ---- Table 4: alltoall -------------------------------------------------------------------------

TEST(Table4Alltoall, Linear) {
    const double Q = 11 * (4 * 12 + 1 - 12 / 2.0);  // (P - 1)(n_s P + 1 - P/2) = 473
    double e = 12 * (60 + 0.01 * 1024) + Q * 60;
    EXPECT_NEAR(T(H, Collective::Alltoall, "linear", 12, 4096, 1024), e * us, tol(e * us));
    e = 12 * (30.40 + 2 * 8.15) + Q * (8.683 + 1023 * 0.015);
    EXPECT_NEAR(T(G, Collective::Alltoall, "linear", 12, 4096, 1024), e * us, tol(e * us));
    e = 12 * 38.017 + Q * 24;
    EXPECT_NEAR(T(PL, Collective::Alltoall, "linear", 12, 4096, 1024), e * us, tol(e * us));
    const double Q7 = 6 * (4 * 7 + 1 - 7 / 2.0);  // odd P: P/2 = 3.5
    e = 7 * 38.017 + Q7 * 24;
    EXPECT_NEAR(T(PL, Collective::Alltoall, "linear", 7, 4096, 1024), e * us, tol(e * us));
}

TEST(Table4Alltoall, Pairwise) {
    double e = 11 * (60 + 0.01 * 1024);
    EXPECT_NEAR(T(H, Collective::Alltoall, "pairwise", 12, 1024, 0), e * us, tol(e * us));
    e = 11 * (30.40 + 8.15 + 1023 * 0.015 + 8.683);
    EXPECT_NEAR(T(G, Collective::Alltoall, "pairwise", 12, 1024, 0), e * us, tol(e * us));
    e = 11 * (38.017 + 24);
    EXPECT_NEAR(T(PL, Collective::Alltoall, "pairwise", 12, 1024, 0), e * us, tol(e * us));
    // Not segmented: a segment size changes nothing.
    EXPECT_EQ(T(PL, Collective::Alltoall, "pairwise", 12, 1024, 256), T(PL, Collective::Alltoall, "pairwise", 12, 1024, 0));
}

// ---- what has no formula, and bad input ----------------------------------------------------------

TEST(ClosedForms, NoFormula) {
    const LevelParams l = model_fixtures::level();
    for (Model m : {H, G, PL}) {
        EXPECT_FALSE(predict(m, Collective::Bcast, "kchain", 8, 1024, 0, 2, l));
        EXPECT_FALSE(predict(m, Collective::Reduce, "kchain", 8, 1024, 0, 2, l));
        EXPECT_FALSE(predict(m, Collective::Alltoall, "bruck", 8, 1024, 0, 2, l));
        EXPECT_FALSE(predict(m, Collective::Scatter, "linear", 8, 1024, 0, 2, l));
        EXPECT_FALSE(predict(m, Collective::Allreduce, "ring", 8, 1024, 0, 2, l));
    }
    EXPECT_FALSE(predict(H, Collective::Bcast, "kary", 8, 1024, 0, 2, l));
    EXPECT_FALSE(predict(G, Collective::Bcast, "kary", 8, 1024, 0, 2, l));
    EXPECT_TRUE(predict(PL, Collective::Bcast, "kary", 8, 1024, 0, 2, l));
    EXPECT_TRUE(has_formula(PL, Collective::Bcast, "kary"));
    EXPECT_FALSE(has_formula(G, Collective::Bcast, "kary"));
    EXPECT_TRUE(has_formula(H, Collective::Barrier, "bruck"));
}

TEST(ClosedForms, BadInput) {
    const LevelParams l = model_fixtures::level();
    try {
        predict(PL, Collective::Bcast, "nosuch", 8, 1024, 0, 2, l);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown bcast algorithm 'nosuch'"), std::string::npos) << e.what();
    }
    EXPECT_THROW(predict(PL, Collective::Bcast, "linear", 0, 1024, 0, 2, l), Error);
    EXPECT_THROW(predict(PL, Collective::Bcast, "linear", 8, -1, 0, 2, l), Error);
    EXPECT_THROW(predict(PL, Collective::Bcast, "linear", 8, 1024, -5, 2, l), Error);
    EXPECT_THROW(predict(PL, Collective::Bcast, "kary", 8, 1024, 0, 0, l), Error);
    LevelParams none;
    none.level = "wan";
    try {
        predict(G, Collective::Bcast, "linear", 8, 1024, 0, 2, none);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("level 'wan' has no LogGP parameters"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(predict(G, Collective::Bcast, "kchain", 8, 1024, 0, 2, none));  // no formula before no params
    EXPECT_EQ(*predict(PL, Collective::Bcast, "binomial", 1, 1024, 0, 2, l), 0.0);  // P = 1: nothing to do
}

TEST(ClosedForms, ModelNames) {
    EXPECT_EQ(parse_model("hockney"), Model::Hockney);
    EXPECT_EQ(parse_model("loggp"), Model::LogGP);
    EXPECT_EQ(parse_model("logp"), Model::LogGP);
    EXPECT_EQ(parse_model("plogp"), Model::PLogP);
    EXPECT_EQ(to_string(Model::PLogP), "plogp");
    EXPECT_THROW(parse_model("postal"), Error);
}
