// SizeFunction (algorithms/model/size_function.cpp): linear interpolation between points,
// constant below the first point, linear extrapolation through the last two beyond the last
// (the size-dependent parameters of paper 002 §3.1 and paper 000 §2.1).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/params.hpp"

using gridcoll::Error;
using gridcoll::model::SizeFunction;

TEST(SizeFunction, EmptyIsZero) {
    const SizeFunction f;
    EXPECT_TRUE(f.empty());
    EXPECT_EQ(f(0), 0.0);
    EXPECT_EQ(f(1e6), 0.0);
}

TEST(SizeFunction, SinglePointIsConstant) {
    const SizeFunction f({{100, 7.0}});
    EXPECT_EQ(f(0), 7.0);
    EXPECT_EQ(f(100), 7.0);
    EXPECT_EQ(f(1e9), 7.0);
    EXPECT_EQ(SizeFunction::constant(3.5)(12345), 3.5);
}

TEST(SizeFunction, InterpolatesBetweenPoints) {
    const SizeFunction f({{0, 10}, {100, 20}, {300, 60}});
    EXPECT_DOUBLE_EQ(f(0), 10);
    EXPECT_DOUBLE_EQ(f(50), 10 + 50 * (20.0 - 10) / 100);   // 15
    EXPECT_DOUBLE_EQ(f(100), 20);
    EXPECT_DOUBLE_EQ(f(250), 20 + 150 * (60.0 - 20) / 200);  // 50
    EXPECT_DOUBLE_EQ(f(300), 60);
}

TEST(SizeFunction, ConstantBelowFirstPoint) {
    const SizeFunction f({{64, 5}, {128, 9}});
    EXPECT_EQ(f(0), 5);
    EXPECT_EQ(f(63.9), 5);
    EXPECT_EQ(f(-1), 5);
}

TEST(SizeFunction, ExtrapolatesThroughLastTwo) {
    const SizeFunction f({{0, 1}, {100, 2}, {200, 5}});
    // slope of the last segment: (5 - 2) / 100 = 0.03
    EXPECT_DOUBLE_EQ(f(400), 5 + 200 * 0.03);  // 11
    EXPECT_DOUBLE_EQ(f(1e6), 5 + (1e6 - 200) * 0.03);
}

TEST(SizeFunction, Affine) {
    const SizeFunction f = SizeFunction::affine(2e-6, 1e-8);
    EXPECT_NEAR(f(0), 2e-6, 1e-20);
    EXPECT_NEAR(f(1000), 2e-6 + 1000 * 1e-8, 1e-18);
    EXPECT_NEAR(f(1e9), 2e-6 + 1e9 * 1e-8, 1e-12);  // beyond the stored points
}

TEST(SizeFunction, RejectsBadTables) {
    EXPECT_THROW(SizeFunction({{0, 1}, {0, 2}}), Error);       // not strictly increasing
    EXPECT_THROW(SizeFunction({{10, 1}, {5, 2}}), Error);      // decreasing
    EXPECT_THROW(SizeFunction({{-1, 1}}), Error);              // negative size
    EXPECT_THROW(SizeFunction({{0, std::nan("")}}), Error);    // not finite
    EXPECT_THROW(SizeFunction({{0, std::numeric_limits<double>::infinity()}}), Error);
    try {
        SizeFunction({{0, 1}, {1024, 2}, {512, 3}});
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("point 2"), std::string::npos) << e.what();
    }
}
