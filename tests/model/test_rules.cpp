// Decision rules files (algorithms/model/rules.cpp): parsing, lookup and fallback, the round trip
// decision table -> rules text -> rules -> lookup, and bad files with file:line errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gridcoll/algorithms/model/decision.hpp"
#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "model_fixtures.hpp"

using namespace gridcoll;
using namespace gridcoll::model;

namespace {

using model_fixtures::error_of;

std::string parse_error(const std::string& text) {
    return error_of([&] { parse_rules(text, "bad.rules"); });
}

const char* const kExample =
    "# comment line\n"
    "bcast  ranks 2-16   bytes 0-1023       binomial         segment 0     fanout 2\n"
    "bcast  ranks 2-16   bytes 1024-8191    splitted-binary  segment 1K   # trailing comment\n"
    "bcast  ranks 2-16   bytes 8192-*       pipeline         segment 8KiB\n"
    "\n"
    "bcast  ranks 17-*                      linear\n"
    "barrier                                recursive-doubling\n"
    "bcast  kary fanout 4 ranks 1 bytes 64K-1M segment 1K\n";  // any order of the keywords

std::vector<std::uint64_t> sizes() {
    std::vector<std::uint64_t> s{1};
    for (std::uint64_t m = 128; m <= (8u << 20); m *= 2) s.push_back(m);
    s.push_back(3000);
    s.push_back(100000);
    return s;
}

std::vector<int> ranks() {
    std::vector<int> r;
    for (int P = 2; P <= 32; ++P) r.push_back(P);
    return r;
}

}  // namespace

TEST(Rules, ParseAndLookup) {
    const Rules r = parse_rules(kExample, "ex.rules");
    ASSERT_EQ(r.rules().size(), 6u);
    EXPECT_EQ(r.rules()[0].line, 2);
    EXPECT_EQ(r.rules()[5].line, 8);
    const Method& a = r.lookup(Collective::Bcast, 2, 0);
    EXPECT_EQ(a, (Method{"binomial", 0, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 16, 1023), (Method{"binomial", 0, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 16, 1024), (Method{"splitted-binary", 1024, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 8, 8191), (Method{"splitted-binary", 1024, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 8, 8192), (Method{"pipeline", 8192, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 3, 1ull << 40), (Method{"pipeline", 8192, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 17, 1), (Method{"linear", 0, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 100000, 1ull << 30), (Method{"linear", 0, 2}));
    EXPECT_EQ(lookup(r, Collective::Barrier, 5, 0), (Method{"recursive-doubling", 0, 2}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 1, 65536), (Method{"kary", 1024, 4}));
    EXPECT_EQ(r.lookup(Collective::Bcast, 1, 1048576), (Method{"kary", 1024, 4}));
    // A rule exists: find gives it; none: nullptr and lookup falls back.
    EXPECT_NE(r.find(Collective::Bcast, 4, 100), nullptr);
    EXPECT_EQ(r.find(Collective::Bcast, 1, 1048577), nullptr);
    EXPECT_EQ(r.lookup(Collective::Bcast, 1, 1048577), default_method(Collective::Bcast));
    EXPECT_EQ(r.find(Collective::Reduce, 4, 100), nullptr);
    EXPECT_EQ(r.lookup(Collective::Reduce, 4, 100), (Method{"binomial", 0, 2}));
    // A copy keeps working (the index refers to rules by position).
    const Rules copy = r;
    EXPECT_EQ(copy.lookup(Collective::Bcast, 8, 8192), (Method{"pipeline", 8192, 2}));
}

TEST(Rules, FallbackIsTheFixedDefault) {
    const Rules none;
    EXPECT_TRUE(none.empty());
    for (Collective c : all_collectives()) {
        const Method& d = default_method(c);
        const auto algs = algorithms_for(c);
        bool has_binomial = false;
        for (const Algorithm* a : algs) has_binomial |= a->name == "binomial";
        EXPECT_EQ(d.algorithm, has_binomial ? "binomial" : algs.front()->name) << to_string(c);
        EXPECT_EQ(d.params.segment, 0u);
        EXPECT_EQ(d.params.fanout, 2);
        EXPECT_EQ(none.find(c, 8, 1024), nullptr);
        EXPECT_EQ(none.lookup(c, 8, 1024), d);
    }
    EXPECT_EQ(default_method(Collective::Bcast).algorithm, "binomial");
    EXPECT_EQ(default_method(Collective::Barrier).algorithm, "flat");
    EXPECT_EQ(default_method(Collective::Allgather).algorithm, "ring");
    // Rules for some communicator sizes only: outside them the default.
    const Rules r = parse_rules("bcast ranks 4-8 bytes 0-1K linear\n", "x");
    EXPECT_EQ(r.lookup(Collective::Bcast, 4, 1024).algorithm, "linear");
    EXPECT_EQ(r.lookup(Collective::Bcast, 3, 1024).algorithm, "binomial");
    EXPECT_EQ(r.lookup(Collective::Bcast, 9, 1024).algorithm, "binomial");
    EXPECT_EQ(r.lookup(Collective::Bcast, 4, 1025).algorithm, "binomial");
    EXPECT_EQ(r.lookup(Collective::Bcast, 0, 0).algorithm, "binomial");
    EXPECT_EQ(r.lookup(Collective::Bcast, -3, 0).algorithm, "binomial");
}

TEST(Rules, TextRoundTrip) {
    const Rules r = parse_rules(kExample, "ex.rules");
    const std::string text = to_rules_text(r, "a comment\nof two lines");
    EXPECT_EQ(text.rfind("# a comment\n# of two lines\n", 0), 0u) << text;
    const Rules back = parse_rules(text, "back.rules");
    EXPECT_EQ(back.rules(), r.rules());
    EXPECT_EQ(to_rules_text(back, "a comment\nof two lines"), text);
    EXPECT_NE(text.find("bcast    ranks 17-*  bytes *"), std::string::npos) << text;
    // Methods are written in their text form, which the older keyword form reads the same as.
    EXPECT_NE(text.find("kary:k=4:seg=1K"), std::string::npos) << text;
    const Rules methods = parse_rules("bcast ranks 1 kary:k=4:seg=1K\nreduce ranks 2-* kchain:k=3\n", "m.rules");
    EXPECT_EQ(methods.lookup(Collective::Bcast, 1, 1ull << 20), (Method{"kary", 1024, 4}));
    EXPECT_EQ(methods.lookup(Collective::Reduce, 7, 8), (Method{"kchain", 0, 3}));
}

// decide -> write -> load -> lookup gives the decision at every grid point.
TEST(Rules, DecisionRoundTrip) {
    const LevelParams level = model_fixtures::level();
    CandidateSpec spec;
    spec.fanouts = {2, 4};
    for (Model model : {Model::Hockney, Model::LogGP, Model::PLogP}) {
        const DecisionTable d = decide_by_model(model, Collective::Bcast, sizes(), ranks(), level, 0.0,
                                                make_candidates(Collective::Bcast, spec));
        const Rules rules = rules_from_decision(d);
        EXPECT_LT(rules.rules().size(), d.entries.size() / 4) << to_string(model) << ": not compact";
        const std::string path = ::testing::TempDir() + "gridcoll_rules_" + std::string(to_string(model)) + ".txt";
        write_rules(path, rules, "test");
        const Rules loaded = load_rules(path);
        std::remove(path.c_str());
        EXPECT_EQ(loaded.rules(), rules.rules());
        for (const Decision& e : d.entries) {
            const Method* m = loaded.find(Collective::Bcast, e.ranks, e.bytes);
            ASSERT_NE(m, nullptr) << e.ranks << " " << e.bytes;
            EXPECT_EQ(*m, e.method) << to_string(model) << " P=" << e.ranks << " m=" << e.bytes;
        }
        // The whole space is covered (first sample extended down, last one up).
        EXPECT_NE(loaded.find(Collective::Bcast, 1, 0), nullptr);
        EXPECT_NE(loaded.find(Collective::Bcast, 1000, 1ull << 40), nullptr);
    }
}

TEST(Rules, SparseMeasuredRoundTripAndMerging) {
    DecisionTable d;
    d.coll = Collective::Reduce;
    d.source = "measured";
    // P = 2 and 4 identical -> one range 1-5; P = 6 differs; P = 8 measured at other sizes.
    d.entries = {{2, 8, {"binomial", 0, 2}, 1, 1},
                 {2, 1024, {"binomial", 0, 2}, 1, 1},
                 {2, 65536, {"pipeline", 8192, 2}, 1, 1},
                 {4, 8, {"binomial", 0, 2}, 1, 1},
                 {4, 1024, {"binomial", 0, 2}, 1, 1},
                 {4, 65536, {"pipeline", 8192, 2}, 1, 1},
                 {6, 8, {"flat", 0, 2}, 1, 1},
                 {6, 65536, {"pipeline", 8192, 2}, 1, 1},
                 {8, 100, {"kchain", 1024, 3}, 1, 1}};
    const Rules r = rules_from_decision(d);
    const std::vector<Rule> expected{
        {Collective::Reduce, 1, 5, 0, 65535, {"binomial", 0, 2}, 0},
        {Collective::Reduce, 1, 5, 65536, kAnyBytes, {"pipeline", 8192, 2}, 0},
        {Collective::Reduce, 6, 7, 0, 65535, {"flat", 0, 2}, 0},
        {Collective::Reduce, 6, 7, 65536, kAnyBytes, {"pipeline", 8192, 2}, 0},
        {Collective::Reduce, 8, kAnyRanks, 0, kAnyBytes, {"kchain", 1024, 3}, 0},
    };
    EXPECT_EQ(r.rules(), expected);
    const Rules back = parse_rules(to_rules_text(r), "r");
    for (const Decision& e : d.entries) EXPECT_EQ(back.lookup(Collective::Reduce, e.ranks, e.bytes), e.method);
    // Two collectives in one set; the same collective twice is an error.
    DecisionTable b = d;
    b.coll = Collective::Bcast;
    b.entries = {{4, 8, {"linear", 0, 2}, 1, 1}};
    const Rules both = rules_from_decisions({d, b});
    EXPECT_EQ(both.lookup(Collective::Bcast, 4, 8).algorithm, "linear");
    EXPECT_EQ(both.lookup(Collective::Reduce, 4, 8).algorithm, "binomial");
    EXPECT_NE(error_of([&] {
                  rules_from_decisions({d, d});
              }).find("two decision tables for reduce"),
              std::string::npos);
    // An empty table: no rules.
    DecisionTable empty;
    EXPECT_TRUE(rules_from_decision(empty).empty());
}

TEST(Rules, BadFiles) {
    struct Case {
        std::string text, error;
    };
    const std::vector<Case> cases{
        {"# ok\nbcats ranks 2-4 binomial\n", "bad.rules:2: unknown collective 'bcats' (valid: barrier, bcast"},
        {"bcast ranks 2-4 binomal\n",
         "bad.rules:1: unknown bcast algorithm 'binomal' (valid: linear, pipeline, binomial"},
        {"bcast ranks 2-4\n", "bad.rules:1: no method"},
        {"bcast binomial linear\n", "bad.rules:1: unexpected 'linear' after the method 'binomial'"},
        {"bcast binomial segment\n", "bad.rules:1: 'segment' needs a value"},
        {"bcast binomial segment 1X\n", "bad.rules:1: bad byte size \"1X\""},
        {"bcast ranks 2-x binomial\n", "bad.rules:1: ranks: 'x' is not a number"},
        {"bcast ranks 0-4 binomial\n", "bad.rules:1: ranks '0-4': communicator sizes must be >= 1"},
        {"bcast ranks 8-2 binomial\n", "bad.rules:1: empty ranks range 8-2"},
        {"bcast bytes 4K-1K binomial\n", "bad.rules:1: empty bytes range 4096-1024"},
        {"bcast ranks 2 ranks 3 binomial\n", "bad.rules:1: 'ranks' given twice"},
        {"bcast kary fanout 0\n", "bad.rules:1: fanout must be >= 1 (got 0)"},
        {"\n\nalltoall pairwise segment 1K\n", "bad.rules:3: method 'pairwise:seg=1K': alltoall algorithm 'pairwise' has no segment size (seg)"},
        {"bcast ranks 2-16 binomial\nreduce ranks 4-8 flat\nbcast ranks 8-32 linear\n",
         "bad.rules:3: bcast ranks 8-32 overlaps ranks 2-16 of line 1 (communicator-size ranges of one collective must "
         "be equal or "
         "disjoint)"},
        {"bcast ranks 8-32 linear\nbcast ranks 2-16 binomial\n",
         "bad.rules:2: bcast ranks 2-16 overlaps ranks 8-32 of line 1"},
        {"bcast ranks 2-16 bytes 0-1K binomial\nbcast ranks 2-16 bytes 2K-* pipeline\nbcast ranks 2-16 bytes 1K-4K "
         "linear\n",
         "bad.rules:3: bcast ranks 2-16 bytes 1024-4096 overlaps bytes 0-1024 of line 1"},
        {"bcast binomial\nbcast linear\n", "bad.rules:2: bcast ranks * bytes * overlaps bytes * of line 1"},
    };
    for (const Case& c : cases) {
        const std::string e = parse_error(c.text);
        EXPECT_NE(e.find(c.error), std::string::npos) << "text:\n"
                                                      << c.text << "error: " << e << "\nexpected: " << c.error;
    }
    // Rules that do not overlap are fine: different collectives, adjacent ranges.
    EXPECT_NO_THROW(parse_rules("bcast ranks 2-16 binomial\nreduce ranks 2-32 flat\nbcast ranks 17-* linear\n", "x"));
    EXPECT_NE(parse_error("bcast ranks 2-16 bytes 2-* binomial\nbcast ranks 2-16 bytes 0-2 linear\n")
                  .find("bad.rules:2: bcast ranks 2-16 bytes 0-2 overlaps bytes 2-* of line 1"),
              std::string::npos);
    EXPECT_NE(
        error_of([] { load_rules("/nonexistent/x.rules"); }).find("rules file: cannot read \"/nonexistent/x.rules\" (no such file)"),
        std::string::npos);
    {  // a byte-order mark, as some editors write, is not part of the first collective's name
        const std::string path = testing::TempDir() + "bom.rules";
        std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBF" << "bcast ranks 2-* binomial\n";
        EXPECT_NO_THROW(load_rules(path));
        std::remove(path.c_str());
    }
    // Rules made in memory name their position.
    std::vector<Rule> mem{{Collective::Bcast, 1, 4, 0, kAnyBytes, {"nope", 0, 2}, 0}};
    EXPECT_NE(error_of([&] { Rules(mem, "mine"); }).find("mine:rule 1: unknown bcast algorithm 'nope'"),
              std::string::npos);
}
