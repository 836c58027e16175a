// The typed operation and its text forms: methods (method.hpp), operations (operation.hpp) and
// result rows (result.hpp) — round trips, the registry checks, and errors that name the text.
#include <gtest/gtest.h>

#include <string>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/result.hpp"

using namespace gridcoll;

namespace {

template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(Method, TextRoundTrip) {
    for (const char* text : {"binomial", "kary:k=4", "kary:k=4:seg=64K", "pipeline:seg=1000", "native", "auto",
                             "multi:seg=8K[linear|kary:k=3:seg=1M|binomial]", "a[b[c|d]|e]",
                             "multitree:k=1:seg=64K:level=2:win=1"}) {
        const Method m = parse_method_text(text);
        EXPECT_EQ(to_string(m), text);
        EXPECT_EQ(parse_method_text(to_string(m)), m) << text;
    }
    // Keys in any order, sizes with any unit; printed canonically.
    EXPECT_EQ(to_string(parse_method_text("kary:seg=65536:k=4")), "kary:k=4:seg=64K");
    EXPECT_EQ(to_string(parse_method_text("kary:k=2:seg=0")), "kary");  // the defaults are not printed
    const Method m = parse_method_text("x[y:k=5|z]");
    ASSERT_EQ(m.params.levels.size(), 2u);
    EXPECT_EQ(m.params.levels[0], (Method{"y", 0, 5}));
    EXPECT_EQ(m.params.levels[1], Method{"z"});
}

TEST(Method, SyntaxErrorsNameTheText) {
    EXPECT_NE(error_of([] { parse_method_text(""); }).find("expected an algorithm name"), std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("kary:k"); }).find("'k' needs '=value'"), std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("kary:k=0"); }).find("k must be a whole number >= 1, not '0'"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("multitree:win=0"); }).find("win must be a whole number >= 1, not '0'"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("kary:k=4:k=5"); }).find("'k' given twice"), std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("kary:depth=3"); }).find("unknown parameter 'depth'"), std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("kary:seg=1X"); }).find("bad byte size \"1X\""), std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("m[a|b"); }).find("expected '|' or ']'"), std::string::npos);
    EXPECT_NE(error_of([] { parse_method_text("a b"); }).find("method 'a b': unexpected ' '"), std::string::npos);
}

TEST(Method, RegistryChecks) {
    EXPECT_EQ(parse_method(Collective::Bcast, "kary:k=4"), (Method{"kary", 0, 4}));
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "binomal"); }).find("unknown bcast algorithm 'binomal'"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "binomial:k=4"); })
                  .find("bcast algorithm 'binomial' has no fan-out (k)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Alltoall, "pairwise:seg=1K"); })
                  .find("alltoall algorithm 'pairwise' has no segment size (seg)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "kary:win=1"); })
                  .find("bcast algorithm 'kary' has no WAN window (win)"),
              std::string::npos);
    EXPECT_EQ(parse_method(Collective::Allreduce, "multitree:win=3").params.wan_window, 3);
    EXPECT_EQ(parse_method(Collective::Allreduce, "multitree").params.wan_window, MethodParams{}.wan_window);
    // shares=equal: the multi-tree algorithms only; printed back, and =bandwidth is the default.
    EXPECT_TRUE(parse_method(Collective::Bcast, "multitree:shares=equal").params.equal_shares);
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "multitree:shares=equal:win=1")), "multitree:win=1:shares=equal");
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "multitree:shares=bandwidth")), "multitree");
    EXPECT_TRUE(parse_method(Collective::Allreduce, "multitree:shares=equal").params.equal_shares);
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "kary:shares=equal"); })
                  .find("bcast algorithm 'kary' has no choice of WAN shares (shares)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "multitree:shares=half"); })
                  .find("shares must be 'equal' or 'bandwidth', not 'half'"),
              std::string::npos);
    // trees=N: the packed methods only, a whole number of at least 1, printed back.
    EXPECT_EQ(parse_method(Collective::Allreduce, "packed:trees=2").params.trees, 2);
    EXPECT_EQ(parse_method(Collective::Allreduce, "packed").params.trees, 0);
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "packed:trees=3:win=1")), "packed:win=1:trees=3");
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "wanstream:trees=2"); })
                  .find("bcast algorithm 'wanstream' has no packed trees (trees)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Allgather, "packed:trees=0"); })
                  .find("trees must be a whole number >= 1, not '0'"),
              std::string::npos);
    // runs=N or auto: the packed broadcast only.
    EXPECT_EQ(parse_method(Collective::Bcast, "packed:runs=3").params.runs, 3);
    EXPECT_EQ(parse_method(Collective::Bcast, "packed").params.runs, 0);
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "packed:runs=auto")), "packed:runs=auto");
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "packed:runs=1:trees=4")), "packed:trees=4:runs=1");
    EXPECT_NE(error_of([] { parse_method(Collective::Allgather, "packed:runs=2"); })
                  .find("allgather algorithm 'packed' has no runs of handed streams (runs)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "binomial[linear]"); }).find("has no per-level methods"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Bcast, "native:k=3"); }).find("'native' takes no parameters"),
              std::string::npos);
    // Defaults (the command line's --segment / --fanout) go only where the algorithm reads them,
    // and never over what the text says.
    const MethodParams d{.segment = 8192, .fanout = 3, .levels = {}};
    EXPECT_EQ(parse_method(Collective::Bcast, "binomial", d), (Method{"binomial", 8192, 2}));
    EXPECT_EQ(parse_method(Collective::Bcast, "kary", d), (Method{"kary", 8192, 3}));
    EXPECT_EQ(parse_method(Collective::Bcast, "kary:seg=0:k=2", d), (Method{"kary", 0, 2}));
    EXPECT_EQ(parse_method(Collective::Barrier, "bruck", d), Method{"bruck"});
    const auto all = parse_method_list(Collective::Bcast, "all,native", d);
    EXPECT_EQ(all.size(), algorithms_for(Collective::Bcast).size() + 1);
    EXPECT_EQ(all.back(), Method{"native"});
    EXPECT_NE(error_of([] { parse_method_list(Collective::Bcast, "binomial,native", {}, {.allow_native = false}); })
                  .find("'native'"),
              std::string::npos);
}

// shards=cut or equal: the packed allreduce only.
TEST(Method, ShardsKey) {
    EXPECT_TRUE(parse_method(Collective::Allreduce, "packed:shards=cut").params.cut_shards);
    EXPECT_FALSE(parse_method(Collective::Allreduce, "packed").params.cut_shards);
    EXPECT_EQ(to_string(parse_method(Collective::Allreduce, "packed:shards=cut:trees=2")), "packed:trees=2:shards=cut");
    EXPECT_EQ(to_string(parse_method(Collective::Allreduce, "packed:shards=equal")), "packed");
    EXPECT_NE(error_of([] { parse_method(Collective::Allreduce, "packed:shards=big"); })
                  .find("shards must be 'equal' or 'cut', not 'big'"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Reduce, "packed:shards=cut"); })
                  .find("reduce algorithm 'packed' has no choice of shards (shards)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Allgather, "packed:shards=cut"); })
                  .find("allgather algorithm 'packed' has no choice of shards (shards)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Allreduce, "multitree:shards=cut"); })
                  .find("allreduce algorithm 'multitree' has no choice of shards (shards)"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_method(Collective::Allreduce, "packed:shards=cut:shards=equal"); })
                  .find("parameter 'shards' given twice"),
              std::string::npos);
}

TEST(Operation, TextRoundTripAndChecks) {
    Operation op;
    op.coll = Collective::Allreduce;
    op.ranks = 8;
    op.bytes = 4096;
    op.type = ElemType::Double;
    op.method = Method{"ring"};
    EXPECT_EQ(to_string(op), "allreduce ranks=8 bytes=4K type=double op=sum method=ring");
    const Operation back = parse_operation(to_string(op));
    EXPECT_EQ(to_string(back), to_string(op));
    EXPECT_EQ(back.type, ElemType::Double);
    EXPECT_NO_THROW(validate(op));

    op.bytes = 100003;  // not a whole number of doubles: caught before any backend starts
    EXPECT_NE(error_of([&] { validate(op); })
                  .find("allreduce ranks=8 bytes=100003 type=double op=sum method=ring: message size 100003 bytes is "
                        "not a multiple of the double element size 8"),
              std::string::npos);
    Operation b = parse_operation("bcast ranks=4 root=each bytes=1M method=kary:k=4:seg=64K");
    EXPECT_EQ(b.root, kEveryRoot);
    EXPECT_EQ(b.method, (Method{"kary", 65536, 4}));
    b.root = 4;
    EXPECT_NE(error_of([&] { validate(b); }).find("root 4 is not one of the 4 ranks"), std::string::npos);
    b.root = 0;
    b.topology = std::make_shared<Topology>(Topology::flat(5));
    EXPECT_NE(error_of([&] { validate(b); }).find("the topology has 5 ranks"), std::string::npos);
    EXPECT_NE(error_of([] { parse_operation("bcast ranks=4 colour=red"); }).find("unknown key 'colour'"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_operation("bcast ranks=four"); }).find("ranks 'four' is not a whole number"),
              std::string::npos);
}

TEST(Batch, PointsAndValidation) {
    Batch b;
    b.shape.coll = Collective::Reduce;
    b.shape.ranks = 3;
    b.shape.type = ElemType::Int64;
    b.methods = {Method{"binomial"}, Method{"flat", 1024}};
    b.sizes = {8, 64};
    const auto ops = b.operations();
    ASSERT_EQ(ops.size(), 4u);
    EXPECT_EQ(ops[1].method, Method{"binomial"});
    EXPECT_EQ(ops[1].bytes, 64u);
    EXPECT_EQ(ops[2].method, (Method{"flat", 1024}));
    EXPECT_NO_THROW(validate(b));
    b.sizes.push_back(12);  // not a whole number of int64
    EXPECT_NE(error_of([&] { validate(b); }).find("not a multiple of the int64 element size 8"), std::string::npos);
    b.sizes.clear();
    EXPECT_NE(error_of([&] { validate(b); }).find("no message size"), std::string::npos);
}

TEST(TimeSummary, MedianMinMax) {
    const TimeSummary odd = summarize({3, 1, 2});
    EXPECT_DOUBLE_EQ(odd.median, 2);
    EXPECT_DOUBLE_EQ(odd.min, 1);
    EXPECT_DOUBLE_EQ(odd.max, 3);
    EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
    EXPECT_DOUBLE_EQ(summarize({}).median, 0);
}

TEST(ResultRows, WriteThenParse) {
    ResultRow r;
    r.backend = "smpi";
    r.op = parse_operation("allreduce ranks=16 bytes=1M type=float op=max method=reduce-bcast:seg=64K");
    r.op.root = kEveryRoot;
    r.reps = 3;
    r.time = {0.25, 0.125, 0.5};
    r.verified = "yes";
    r.choice = "auto:rules, x";  // a comma would split the field: written as ';'
    r.timing = "per-rank";
    const std::string text = std::string(result_csv_header()) + "\n" + to_csv(r) + "\n";
    const auto rows = parse_result_csv(text, "r.csv");
    ASSERT_EQ(rows.size(), 1u);
    const ResultRow& p = rows[0];
    EXPECT_EQ(p.backend, "smpi");
    EXPECT_EQ(to_string(p.op), to_string(r.op));
    EXPECT_EQ(p.op.root, kEveryRoot);
    EXPECT_EQ(p.reps, 3);
    EXPECT_DOUBLE_EQ(p.time.median, 0.25);
    EXPECT_DOUBLE_EQ(p.time.min, 0.125);
    EXPECT_DOUBLE_EQ(p.time.max, 0.5);
    EXPECT_EQ(p.verified, "yes");
    EXPECT_EQ(p.choice, "auto:rules; x");
    EXPECT_EQ(p.timing, "per-rank");
    EXPECT_EQ(p.line, 2);
    EXPECT_EQ(to_csv(p), to_csv(ResultRow{r.backend, r.op, r.reps, r.time, r.verified, "auto:rules; x", "per-rank", 0}));
}

namespace {

// Rows as gridcoll wrote them before methods had a text form.
const char* const kOldFormat =
    "backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n"
    "openmpi,bcast,linear,4,8,0,2,rotate,10,3e-05,2e-05,4e-05,yes\n"
    "openmpi,bcast,auto:linear,4,8,0,2,rotate,10,1e-05,1e-05,1e-05,yes\n"
    "\n"
    "# a second run, concatenated\n"
    "backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n"
    "openmpi,bcast,kary,8,8,1024,4,3,10,4e-05,3e-05,5e-05,yes\n";

}  // namespace

TEST(ResultRows, OlderFilesAndColumnsByName) {
    const auto rows = parse_result_csv(kOldFormat, "old.csv");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].op.method, Method{"linear"});
    EXPECT_EQ(rows[0].op.root, kEveryRoot);
    EXPECT_EQ(rows[1].op.method.algorithm, "auto:linear");
    EXPECT_EQ(rows[2].op.method, (Method{"kary", 1024, 4}));
    EXPECT_EQ(rows[2].op.root, 3);
    EXPECT_EQ(rows[2].line, 7);
    const auto r2 = parse_result_csv(
        "time_s,method,collective,bytes,ranks,backend,min_s,max_s,verified,extra\n"
        "1.5,binary:seg=4K,bcast,64,3,smpi,1,2,yes,x\n",
        "x.csv");
    ASSERT_EQ(r2.size(), 1u);
    EXPECT_EQ(r2[0].op.method, (Method{"binary", 4096}));
    EXPECT_EQ(r2[0].op.ranks, 3);
    EXPECT_EQ(r2[0].op.bytes, 64u);
    EXPECT_DOUBLE_EQ(r2[0].time.median, 1.5);
}

TEST(ResultRows, BadFilesNameFileAndLine) {
    const std::string hdr(result_csv_header());
    EXPECT_NE(error_of([] { parse_result_csv("smpi,bcast,linear,linear,4,8,rotate,,,10,3e-05,2e-05,4e-05,yes,\n", "a.csv"); })
                  .find("a.csv:1: no header line"),
              std::string::npos);
    EXPECT_NE(error_of([&] { parse_result_csv(hdr + "\nsmpi,bcast,linear,linear,four,8,rotate,,,10,3e-05,2e-05,4e-05,yes,,,\n", "b.csv"); })
                  .find("b.csv:2: ranks: 'four' is not a valid value"),
              std::string::npos);
    EXPECT_NE(error_of([&] { parse_result_csv(hdr + "\nsmpi,bcast,linear\n", "c.csv"); })
                  .find("c.csv:2: expected the header's 17 fields, got 3"),
              std::string::npos);
    EXPECT_NE(error_of([&] { parse_result_csv(hdr + "\nsmpi,bcats,linear,linear,4,8,rotate,,,10,3e-05,2e-05,4e-05,yes,,,\n", "d.csv"); })
                  .find("d.csv:2: unknown collective 'bcats'"),
              std::string::npos);
    EXPECT_NE(error_of([&] { parse_result_csv(hdr + "\nsmpi,bcast,linear,linear,4,8,rotate,,,10,fast,2e-05,4e-05,yes,,,\n", "e.csv"); })
                  .find("e.csv:2: time_s: 'fast'"),
              std::string::npos);
    EXPECT_NE(error_of([&] { parse_result_csv(hdr + "\nsmpi,bcast,kary:k=,linear,4,8,rotate,,,10,1,1,1,yes,,,\n", "g.csv"); })
                  .find("g.csv:2: method 'kary:k='"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_result_csv("backend,collective,time_s\n", "f.csv"); })
                  .find("f.csv:1: header has no column 'ranks'"),
              std::string::npos);
    EXPECT_NE(error_of([] { load_result_csv("/nonexistent/sweep.csv"); }).find("/nonexistent/sweep.csv"),
              std::string::npos);
}
