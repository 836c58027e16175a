// Units of platform descriptions (FORMAT.md "Units"): every unit the format lists, the number
// forms, and errors that name the text.
#include <gtest/gtest.h>

#include <string>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"

using namespace gridcoll;
using namespace gridcoll::platform;

namespace {

std::string error_of(double (*parse)(const std::string&), const std::string& text) {
    try {
        parse(text);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(Units, Times) {
    EXPECT_DOUBLE_EQ(parse_time("20us"), 20e-6);
    EXPECT_DOUBLE_EQ(parse_time("1.5ms"), 1.5e-3);
    EXPECT_DOUBLE_EQ(parse_time("3s"), 3);
    EXPECT_DOUBLE_EQ(parse_time("250ns"), 250e-9);
    EXPECT_DOUBLE_EQ(parse_time("0us"), 0);
    EXPECT_DOUBLE_EQ(parse_time("1e3us"), 1e-3);
    EXPECT_DOUBLE_EQ(parse_time(".5s"), 0.5);
    EXPECT_DOUBLE_EQ(parse_time("+2ms"), 2e-3);
    EXPECT_DOUBLE_EQ(parse_time("-1us"), -1e-6);  // the sign is kept; the loader rejects it
}

TEST(Units, Bandwidths) {
    EXPECT_DOUBLE_EQ(parse_bandwidth("1MB/s"), 1e6);
    EXPECT_DOUBLE_EQ(parse_bandwidth("50MB/s"), 50e6);
    EXPECT_DOUBLE_EQ(parse_bandwidth("1B/s"), 1);
    EXPECT_DOUBLE_EQ(parse_bandwidth("2kB/s"), 2e3);
    EXPECT_DOUBLE_EQ(parse_bandwidth("1GB/s"), 1e9);
    EXPECT_DOUBLE_EQ(parse_bandwidth("1KiB/s"), 1024);
    EXPECT_DOUBLE_EQ(parse_bandwidth("1MiB/s"), 1048576);
    EXPECT_DOUBLE_EQ(parse_bandwidth("8GiB/s"), 8.0 * 1073741824.0);
    EXPECT_DOUBLE_EQ(parse_bandwidth("100Mbps"), 12.5e6);
    EXPECT_DOUBLE_EQ(parse_bandwidth("8bps"), 1);
    EXPECT_DOUBLE_EQ(parse_bandwidth("8kbps"), 1e3);
    EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbps"), 1.25e9);
    EXPECT_DOUBLE_EQ(parse_bandwidth("100Mb/s"), 12.5e6);
    EXPECT_DOUBLE_EQ(parse_bandwidth("8b/s"), 1);
    EXPECT_DOUBLE_EQ(parse_bandwidth("8kb/s"), 1e3);
    EXPECT_DOUBLE_EQ(parse_bandwidth("1Gb/s"), 1.25e8);
    EXPECT_DOUBLE_EQ(parse_bandwidth("-1MB/s"), -1e6);
}

TEST(Units, Speeds) {
    EXPECT_DOUBLE_EQ(parse_speed("1Gf"), 1e9);
    EXPECT_DOUBLE_EQ(parse_speed("2.5Gf"), 2.5e9);
    EXPECT_DOUBLE_EQ(parse_speed("7f"), 7);
    EXPECT_DOUBLE_EQ(parse_speed("3kf"), 3e3);
    EXPECT_DOUBLE_EQ(parse_speed("4Mf"), 4e6);
    EXPECT_DOUBLE_EQ(parse_speed("1Tf"), 1e12);
}

TEST(Units, ErrorsNameTheText) {
    EXPECT_NE(error_of(parse_time, "20").find("bad time \"20\": a bare number needs a unit"), std::string::npos);
    EXPECT_NE(error_of(parse_time, "20uss").find("unknown unit \"uss\""), std::string::npos);
    EXPECT_NE(error_of(parse_time, "20 us").find("\"20 us\""), std::string::npos);  // no space inside
    EXPECT_NE(error_of(parse_time, " 20us").find("expected a number"), std::string::npos);
    EXPECT_NE(error_of(parse_time, "").find("bad time \"\""), std::string::npos);
    EXPECT_NE(error_of(parse_time, "us").find("expected a number"), std::string::npos);
    EXPECT_NE(error_of(parse_time, "1e999s").find("out of range"), std::string::npos);
    EXPECT_NE(error_of(parse_time, "inf s").find("bad time"), std::string::npos);
    EXPECT_NE(error_of(parse_time, "1MB/s").find("unknown unit \"MB/s\""), std::string::npos);
    EXPECT_NE(error_of(parse_bandwidth, "1mb/s").find("bad bandwidth \"1mb/s\""), std::string::npos);  // case matters
    EXPECT_NE(error_of(parse_bandwidth, "1KB/s").find("unknown unit \"KB/s\""), std::string::npos);    // kB/s or KiB/s
    EXPECT_NE(error_of(parse_bandwidth, "1Mbit").find("unknown unit"), std::string::npos);
    EXPECT_NE(error_of(parse_bandwidth, "1").find("a bare number"), std::string::npos);
    EXPECT_NE(error_of(parse_speed, "1GHz").find("bad speed \"1GHz\""), std::string::npos);
    EXPECT_NE(error_of(parse_speed, "1.2.3Gf").find("bad speed"), std::string::npos);
    EXPECT_NE(error_of(parse_speed, "--1Gf").find("bad speed"), std::string::npos);
}
