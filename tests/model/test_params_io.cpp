// Model parameter files (algorithms/model/params_io.cpp): exact round trip of a ParamSet through
// TOML text and through a file, and errors naming file:line:column and the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/params_io.hpp"
#include "model_fixtures.hpp"

using namespace gridcoll;
using namespace gridcoll::model;

namespace {

void expect_same(const SizeFunction& a, const SizeFunction& b) { EXPECT_EQ(a.points(), b.points()); }

void expect_same(const ParamSet& a, const ParamSet& b) {
    EXPECT_EQ(a.origin, b.origin);
    EXPECT_EQ(a.gamma, b.gamma);
    ASSERT_EQ(a.levels.size(), b.levels.size());
    for (std::size_t i = 0; i < a.levels.size(); ++i) {
        const LevelParams &x = a.levels[i], &y = b.levels[i];
        EXPECT_EQ(x.level, y.level);
        ASSERT_EQ(x.plogp.has_value(), y.plogp.has_value());
        ASSERT_EQ(x.loggp.has_value(), y.loggp.has_value());
        ASSERT_EQ(x.hockney.has_value(), y.hockney.has_value());
        if (x.plogp) {
            EXPECT_EQ(x.plogp->L, y.plogp->L);
            expect_same(x.plogp->os, y.plogp->os);
            expect_same(x.plogp->or_, y.plogp->or_);
            expect_same(x.plogp->g, y.plogp->g);
        }
        if (x.loggp) {
            EXPECT_EQ(x.loggp->L, y.loggp->L);
            EXPECT_EQ(x.loggp->o, y.loggp->o);
            EXPECT_EQ(x.loggp->g, y.loggp->g);
            EXPECT_EQ(x.loggp->G, y.loggp->G);
        }
        if (x.hockney) {
            expect_same(x.hockney->alpha, y.hockney->alpha);
            expect_same(x.hockney->beta, y.hockney->beta);
        }
    }
}

ParamSet sample() {
    ParamSet p;
    p.origin = "fitted \"by hand\"\ttab";
    p.gamma = 1.0 / 3.0 * 1e-9;
    p.levels.push_back(model_fixtures::level());
    p.levels.push_back(level_from_link("wan", 10e-3, 1e6));
    LevelParams only_loggp;
    only_loggp.level = "core";
    only_loggp.loggp = LogGPParams{1e-7, 2e-7, 3e-7, 0.1 / 7.0 * 1e-9};
    p.levels.push_back(only_loggp);
    return p;
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("gridcoll_params_" + std::to_string(::getpid()) + "_" + name + ".toml"))
        .string();
}

// The Error message of parsing `text`, or "" when it parses.
std::string error_of(const std::string& text) {
    try {
        parse_params(text, "p.toml");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(ParamsIo, RoundTripText) {
    const ParamSet p = sample();
    const std::string text = to_toml(p);
    expect_same(p, parse_params(text, "mem"));
    EXPECT_EQ(text, to_toml(parse_params(text, "mem")));
}

TEST(ParamsIo, RoundTripFile) {
    const ParamSet p = sample();
    const std::string path = temp_path("roundtrip");
    save_params(p, path);
    expect_same(p, load_params(path));
    std::filesystem::remove(path);
}

TEST(ParamsIo, ReadsDocumentedFormat) {
    const ParamSet p = parse_params(R"(
version = 1
origin = "given"
gamma = 2e-9

[[level]]
name = "lan"
[level.plogp]
L = 3.8e-5
os = [[0, 8.0e-6], [65536, 2.1e-4]]
or = 8e-6
g = [[0, 8.7e-6], [1024, 2.4e-5]]
[level.loggp]
L = 3.04e-5
o = 8.15e-6
g = 8.683e-6
G = 1.5e-8
[level.hockney]
alpha = [[0, 4.6e-5]]
beta = 1.5e-8

[[level]]
name = "wan"
)",
                                    "doc.toml");
    EXPECT_EQ(p.origin, "given");
    EXPECT_EQ(p.gamma, 2e-9);
    ASSERT_EQ(p.levels.size(), 2u);
    const LevelParams& l = p.levels[0];
    EXPECT_EQ(l.level, "lan");
    EXPECT_EQ(l.plogp->L, 3.8e-5);
    EXPECT_DOUBLE_EQ(l.plogp->os(32768), 8.0e-6 + 32768 * (2.1e-4 - 8.0e-6) / 65536);
    EXPECT_EQ(l.plogp->or_(1e6), 8e-6);
    EXPECT_DOUBLE_EQ(l.plogp->g(512), (8.7e-6 + 2.4e-5) / 2);
    EXPECT_EQ(l.loggp->G, 1.5e-8);
    EXPECT_EQ(l.hockney->alpha(100), 4.6e-5);
    EXPECT_EQ(l.hockney->beta(100), 1.5e-8);
    EXPECT_EQ(p.levels[1].level, "wan");
    EXPECT_FALSE(p.levels[1].plogp || p.levels[1].loggp || p.levels[1].hockney);
}

TEST(ParamsIo, EmptyFileIsEmptySet) {
    const ParamSet p = parse_params("", "empty.toml");
    EXPECT_TRUE(p.levels.empty());
    EXPECT_EQ(p.gamma, 0.0);
}

TEST(ParamsIo, ErrorsNameFileLineAndKey) {
    // Line 5, column 7 is the second point of g.
    const std::string bad_order = "[[level]]\nname = \"lan\"\n[level.plogp]\nL = 1e-5\ng = [[0, 1e-6],\n      [0, 2e-6]]\nos = 0\nor = 0\n";
    const std::string e1 = error_of(bad_order);
    EXPECT_NE(e1.find("p.toml:6:7: level[0].plogp.g[1]: sizes must increase strictly"), std::string::npos) << e1;

    const std::string e2 = error_of("[[level]]\nname = \"lan\"\n[level.plogp]\nL = 1e-5\nos = 0\nor = 0\n");
    EXPECT_NE(e2.find("p.toml:3:1: level[0].plogp.g: missing required key"), std::string::npos) << e2;

    const std::string e3 = error_of("gamma = 1\nbogus = 2\n");
    EXPECT_NE(e3.find("p.toml:2:9: bogus: unknown key"), std::string::npos) << e3;

    const std::string e4 = error_of("[[level]]\nname = \"lan\"\n[level.loggp]\nL = \"30us\"\no = 0\ng = 0\nG = 0\n");
    EXPECT_NE(e4.find("p.toml:4:5: level[0].loggp.L: expected a number, got a string"), std::string::npos) << e4;

    const std::string e5 = error_of("[[level]]\nname = \"lan\"\n[level.loggp]\nL = -1e-5\no = 0\ng = 0\nG = 0\n");
    EXPECT_NE(e5.find("p.toml:4:5: level[0].loggp.L: must be >= 0"), std::string::npos) << e5;

    const std::string e6 = error_of("[[level]]\nname = \"a\"\n[[level]]\nname = \"a\"\n");
    EXPECT_NE(e6.find("p.toml:4:8: level[1].name: duplicate level name \"a\""), std::string::npos) << e6;

    const std::string e7 = error_of("gamma = 1\nlevel = [1, 2]\n");
    EXPECT_NE(e7.find("p.toml:2:9: level: expected an array of tables"), std::string::npos) << e7;

    const std::string e8 = error_of("version = 2\n");
    EXPECT_NE(e8.find("p.toml:1:11: version: unsupported version"), std::string::npos) << e8;

    const std::string e9 = error_of("gamma = = 1\n");  // TOML syntax error
    EXPECT_NE(e9.find("p.toml:1:9: TOML syntax error: "), std::string::npos) << e9;

    const std::string e10 = error_of("[[level]]\nname = \"x\"\n[level.hockney]\nalpha = [[0, 1e-5, 3]]\nbeta = 0\n");
    EXPECT_NE(e10.find("p.toml:4:10: level[0].hockney.alpha[0]: expected a point [bytes, value]"), std::string::npos)
        << e10;

    const std::string e11 = error_of("[[level]]\nname = \"x\"\n[level.hockney]\nalpha = []\nbeta = 0\n");
    EXPECT_NE(e11.find("level[0].hockney.alpha: empty point list"), std::string::npos) << e11;

    const std::string e12 = error_of("[[level]]\nname = \"x\"\nplogp = 3\n");
    EXPECT_NE(e12.find("p.toml:3:9: level[0].plogp: expected a table"), std::string::npos) << e12;

    EXPECT_EQ(error_of("[[level]]\nname = \"x\"\n[level.hockney]\nalpha = -1e-6\nbeta = 0\n"), "");  // alpha may be < 0
}

TEST(ParamsIo, MissingFile) {
    try {
        load_params("/nonexistent/dir/params.toml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot read \"/nonexistent/dir/params.toml\" (no such file)"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(save_params(sample(), "/nonexistent/dir/params.toml"), Error);
}

TEST(ParamsIo, FileErrorsNameThePath) {
    const std::string path = temp_path("bad");
    {
        std::ofstream out(path);
        out << "gamma = 1\n[[level]]\nname = 3\n";
    }
    try {
        load_params(path);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":3:8: level[0].name: expected a string"), std::string::npos)
            << e.what();
    }
    std::filesystem::remove(path);
}
