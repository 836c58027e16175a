// Decision functions (algorithms/model/decision.cpp, paper 002 §6.3): the model's argmin on a
// tiny candidate set with hand-computed predictions, the measured decision from a synthetic
// gridcoll-bench CSV, the Figure 7 penalty, and the CSV output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "gridcoll/algorithms/model/decision.hpp"
#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "model_fixtures.hpp"

using namespace gridcoll;
using namespace gridcoll::model;

namespace {

using model_fixtures::error_of;

// Hockney with constant alpha = 1 us and beta = 1 ns/byte: t(m) = 1e-6 + 1e-9 m.
LevelParams simple_hockney() {
    LevelParams l;
    l.level = "lan";
    l.hockney = HockneyParams{SizeFunction::constant(1e-6), SizeFunction::constant(1e-9)};
    return l;
}

double t(double m) { return 1e-6 + 1e-9 * m; }

}  // namespace

// ---- methods and candidates ------------------------------------------------------------------

TEST(Decision, NormalizeMakesEquivalentMethodsEqual) {
    // segment >= m is no segmentation (Segments, predict), fan-out only for algorithms that use it.
    EXPECT_EQ(normalize(Collective::Bcast, {"pipeline", 8192, 7}, 4096), (Method{"pipeline", 0, 2}));
    EXPECT_EQ(normalize(Collective::Bcast, {"pipeline", 8192, 2}, 8192), (Method{"pipeline", 0, 2}));
    EXPECT_EQ(normalize(Collective::Bcast, {"pipeline", 1024, 2}, 4096), (Method{"pipeline", 1024, 2}));
    EXPECT_EQ(normalize(Collective::Bcast, {"kary", 1024, 4}, 4096), (Method{"kary", 1024, 4}));
    EXPECT_EQ(normalize(Collective::Alltoall, {"pairwise", 1024, 3}, 65536), (Method{"pairwise", 0, 2}));
    EXPECT_NE(error_of([] {
                  normalize(Collective::Bcast, {"nope", 0, 2}, 1);
              }).find("valid: linear"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  normalize(Collective::Bcast, {"kary", 0, 0}, 1);
              }).find("fan-out must be >= 1"),
              std::string::npos);
}

TEST(Decision, MethodLabels) {
    EXPECT_EQ(method_label(Collective::Bcast, {"binomial", 0, 2}), "binomial");
    EXPECT_EQ(method_label(Collective::Bcast, {"pipeline", 8192, 2}), "pipeline 8KB");
    EXPECT_EQ(method_label(Collective::Bcast, {"kary", 1024, 4}), "kary k=4 1KB");
    EXPECT_EQ(method_label(Collective::Bcast, {"splitted-binary", 1000, 2}), "splitted-binary 1000B");
}

TEST(Decision, CandidatesExpandOnlyTheParametersAnAlgorithmHas) {
    CandidateSpec spec;
    spec.algorithms = {"linear", "pipeline", "kary"};
    spec.segments = {0, 1024};
    spec.fanouts = {2, 4};
    const auto c = make_candidates(Collective::Bcast, spec);
    const std::vector<Method> expected{{"linear", 0, 2}, {"linear", 1024, 2}, {"pipeline", 0, 2}, {"pipeline", 1024, 2},
                                       {"kary", 0, 2},   {"kary", 0, 4},      {"kary", 1024, 2},  {"kary", 1024, 4}};
    EXPECT_EQ(c, expected);
    // Non-segmenting algorithms get segment 0 only.
    const auto a = make_candidates(Collective::Alltoall, CandidateSpec{});
    EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const Method& m) { return m.algorithm == "pairwise"; }), 1);
    EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const Method& m) { return m.algorithm == "linear"; }), 3);
    // Defaults: every bcast algorithm of the registry, paper 002's segment sizes.
    EXPECT_EQ(make_candidates(Collective::Bcast, CandidateSpec{}).front(), (Method{"linear", 0, 2}));
    spec.fanouts = {0};
    EXPECT_NE(error_of([&] { make_candidates(Collective::Bcast, spec); }).find("fan-out must be >= 1"),
              std::string::npos);
    spec = CandidateSpec{};
    spec.segments.clear();
    EXPECT_NE(error_of([&] { make_candidates(Collective::Bcast, spec); }).find("segment sizes is empty"),
              std::string::npos);
    spec = CandidateSpec{};
    spec.algorithms = {"binomal"};
    EXPECT_NE(error_of([&] { make_candidates(Collective::Bcast, spec); }).find("unknown bcast algorithm 'binomal'"),
              std::string::npos);
}

// ---- the model's argmin ----------------------------------------------------------------------

// Hockney bcast (paper 002 Table 2): linear n (P-1) t, pipeline (P + n - 2) t,
// binomial ceil(log2 P) n t, with t = t(m_s).
TEST(Decision, ArgminOnTinyCandidateSet) {
    const std::vector<Method> cands{{"linear", 0, 2}, {"binomial", 0, 2}, {"pipeline", 0, 2}, {"pipeline", 1024, 2}};
    const DecisionTable d =
        decide_by_model(Model::Hockney, Collective::Bcast, {1048576, 1}, {8, 2}, simple_hockney(), 0.0, cands);
    EXPECT_EQ(d.source, "hockney");
    EXPECT_EQ(d.coll, Collective::Bcast);
    EXPECT_TRUE(d.unmodelled.empty());
    ASSERT_EQ(d.entries.size(), 4u);
    // Sorted by (P, m).
    EXPECT_EQ(d.entries[0].ranks, 2);
    EXPECT_EQ(d.entries[0].bytes, 1u);
    EXPECT_EQ(d.entries[3].ranks, 8);
    EXPECT_EQ(d.entries[3].bytes, 1048576u);
    for (const auto& e : d.entries) EXPECT_EQ(e.compared, 4);

    // P = 2: every tree is one message: linear t, binomial t, pipeline t; a tie, the first wins.
    const Decision* e = d.find(2, 1);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"linear", 0, 2}));
    EXPECT_DOUBLE_EQ(e->time_s, t(1));
    // P = 2, 1 MiB: linear t(1M) = 1.049576 ms < pipeline/1K (2 + 1024 - 2) t(1K) = 2.072576 ms.
    e = d.find(2, 1048576);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"linear", 0, 2}));
    EXPECT_DOUBLE_EQ(e->time_s, t(1048576));
    // P = 8, 1 byte: linear 7 t, binomial 3 t, pipeline 7 t -> binomial. (pipeline/1K at 1 byte
    // is unsegmented.)
    e = d.find(8, 1);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"binomial", 0, 2}));
    EXPECT_DOUBLE_EQ(e->time_s, 3 * t(1));
    // P = 8, 1 MiB: binomial 3 t(1M) = 3.148728 ms, pipeline/1K (8 + 1024 - 2) t(1K) = 2.08472 ms.
    e = d.find(8, 1048576);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"pipeline", 1024, 2}));
    EXPECT_NEAR(e->time_s, 1030 * t(1024), 1e-15);
    EXPECT_EQ(d.find(4, 1), nullptr);
}

TEST(Decision, ChoiceIsCanonical) {
    // Only pipeline/8K: at 4 KiB it is unsegmented, and reported so.
    const DecisionTable d = decide_by_model(Model::Hockney, Collective::Bcast, {4096, 65536}, {4}, simple_hockney(),
                                            0.0, {{"pipeline", 8192, 2}});
    EXPECT_EQ(d.find(4, 4096)->method, (Method{"pipeline", 0, 2}));
    EXPECT_EQ(d.find(4, 65536)->method, (Method{"pipeline", 8192, 2}));
}

TEST(Decision, ArgminAgreesWithEveryPrediction) {
    const LevelParams level = model_fixtures::level();
    CandidateSpec spec;
    spec.fanouts = {2, 3, 4};
    const auto cands = make_candidates(Collective::Bcast, spec);
    const std::vector<std::uint64_t> sizes{1, 100, 1024, 4096, 10000, 65536, 1 << 20};
    const std::vector<int> ranks{1, 2, 3, 5, 8, 13, 16, 24, 32};
    for (Model model : {Model::Hockney, Model::LogGP, Model::PLogP}) {
        const DecisionTable d = decide_by_model(model, Collective::Bcast, sizes, ranks, level, 0.0, cands);
        ASSERT_EQ(d.entries.size(), sizes.size() * ranks.size());
        // kchain has no closed form; kary only under PLogP.
        EXPECT_NE(std::find(d.unmodelled.begin(), d.unmodelled.end(), "kchain"), d.unmodelled.end());
        EXPECT_EQ(std::find(d.unmodelled.begin(), d.unmodelled.end(), "kary") != d.unmodelled.end(),
                  model != Model::PLogP);
        for (const Decision& e : d.entries) {
            for (const Method& c : cands) {
                const auto p = predict(model, Collective::Bcast, c.algorithm, e.ranks, static_cast<double>(e.bytes),
                                       static_cast<double>(c.params.segment), c.params.fanout, level, 0.0);
                if (p) {
                    EXPECT_LE(e.time_s, *p)
                        << to_string(model) << " P=" << e.ranks << " m=" << e.bytes << " " << c.algorithm;
                }
            }
            const auto self =
                predict(model, Collective::Bcast, e.method.algorithm, e.ranks, static_cast<double>(e.bytes),
                        static_cast<double>(e.method.params.segment), e.method.params.fanout, level, 0.0);
            ASSERT_TRUE(self.has_value());
            EXPECT_DOUBLE_EQ(*self, e.time_s);
        }
    }
}

TEST(Decision, ReduceUsesGamma) {
    const LevelParams level = model_fixtures::level();
    const auto cands = make_candidates(Collective::Reduce, CandidateSpec{});
    const DecisionTable a = decide_by_model(Model::Hockney, Collective::Reduce, {65536}, {16}, level, 0.0, cands);
    const DecisionTable b = decide_by_model(Model::Hockney, Collective::Reduce, {65536}, {16}, level, 1e-8, cands);
    EXPECT_GT(b.entries[0].time_s, a.entries[0].time_s);
}

TEST(Decision, ModelErrors) {
    const LevelParams level = simple_hockney();
    const std::vector<Method> ok{{"binomial", 0, 2}};
    EXPECT_NE(error_of([&] {
                  decide_by_model(Model::Hockney, Collective::Bcast, {}, {2}, level, 0, ok);
              }).find("message sizes is empty"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  decide_by_model(Model::Hockney, Collective::Bcast, {1}, {}, level, 0, ok);
              }).find("communicator sizes is empty"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  decide_by_model(Model::Hockney, Collective::Bcast, {1}, {0}, level, 0, ok);
              }).find("communicator size must be >= 1, got 0"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  decide_by_model(Model::Hockney, Collective::Bcast, {1}, {2}, level, 0, {});
              }).find("candidate set is empty"),
              std::string::npos);
    // Only algorithms without a closed form under the model.
    const std::string e = error_of([&] {
        decide_by_model(Model::Hockney, Collective::Bcast, {1}, {2}, level, 0, {{"kchain", 0, 2}, {"kary", 0, 3}});
    });
    EXPECT_NE(
        e.find("no candidate bcast algorithm has a closed form under the hockney model (candidates: kchain, kary)"),
        std::string::npos)
        << e;
    // The level lacks the model's parameters.
    EXPECT_NE(error_of([&] {
                  decide_by_model(Model::PLogP, Collective::Bcast, {1}, {2}, level, 0, ok);
              }).find("no PLogP parameters"),
              std::string::npos);
}

// ---- measurements ----------------------------------------------------------------------------

namespace {

const char* const kSweep =
    "backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n"
    "openmpi,bcast,linear,4,8,0,2,rotate,10,3e-05,2e-05,4e-05,yes\n"
    "openmpi,bcast,binomial,4,8,0,4,rotate,10,2e-05,1e-05,3e-05,yes\n"       // fanout 4: still binomial
    "openmpi,bcast,native,4,8,0,0,rotate,10,1e-05,1e-05,1e-05,yes\n"         // ignored: not a registry algorithm
    "openmpi,bcast,auto:linear,4,8,0,2,rotate,10,1e-05,1e-05,1e-05,yes\n"    // ignored
    "openmpi,bcast,pipeline,4,8,1024,2,rotate,10,2.5e-05,2e-05,3e-05,yes\n"  // unsegmented at 8 bytes
    "openmpi,bcast,pipeline,4,65536,1024,2,rotate,10,0.0004,0.0003,0.0005,yes\n"
    "openmpi,bcast,pipeline,4,65536,8192,2,rotate,10,0.0003,0.0002,0.0004,yes\n"
    "openmpi,bcast,binomial,4,65536,0,2,rotate,10,0.0005,0.0004,0.0006,yes\n"
    "openmpi,bcast,linear,4,65536,0,2,rotate,10,0.0001,0.0001,0.0001,FAILED\n"  // ignored: wrong results
    "openmpi,reduce,binomial,4,8,0,2,rotate,10,1e-06,1e-06,1e-06,yes\n"         // another collective
    "\n"
    "# a second run, concatenated\n"
    "backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n"
    "openmpi,bcast,binomial,8,8,0,2,rotate,10,4e-05,3e-05,5e-05,yes\n"
    "openmpi,bcast,binomial,4,8,0,2,rotate,10,1.5e-05,1e-05,2e-05,yes\n";  // measured twice: least time

}  // namespace

TEST(Decision, MeasuredDecision) {
    const auto rows = parse_result_csv(kSweep, "sweep.csv");
    const DecisionTable d = decide_by_measurement(rows, Collective::Bcast);
    EXPECT_EQ(d.source, "measured");
    ASSERT_EQ(d.entries.size(), 3u);
    const Decision* e = d.find(4, 8);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"binomial", 0, 2}));
    EXPECT_DOUBLE_EQ(e->time_s, 1.5e-5);
    EXPECT_EQ(e->compared, 3);  // linear, binomial, pipeline
    e = d.find(4, 65536);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"pipeline", 8192, 2}));  // the FAILED linear row does not count
    EXPECT_DOUBLE_EQ(e->time_s, 3e-4);
    EXPECT_EQ(e->compared, 3);
    e = d.find(8, 8);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->method, (Method{"binomial", 0, 2}));
    EXPECT_EQ(e->compared, 1);
    // The reduce row.
    const DecisionTable r = decide_by_measurement(rows, Collective::Reduce);
    ASSERT_EQ(r.entries.size(), 1u);
    EXPECT_EQ(r.entries[0].method.algorithm, "binomial");
    EXPECT_TRUE(decide_by_measurement(rows, Collective::Alltoall).entries.empty());
}

// ---- penalty (Figure 7) ----------------------------------------------------------------------

TEST(Decision, Penalty) {
    const auto rows = parse_result_csv(kSweep, "sweep.csv");
    DecisionTable model;
    model.coll = Collective::Bcast;
    model.source = "plogp";
    model.entries = {
        {4, 8, {"linear", 0, 2}, 1e-6, 4},           // measured 3e-5 vs best 1.5e-5: +100 %
        {4, 65536, {"pipeline", 1024, 2}, 1e-6, 4},  // 4e-4 vs 3e-4: +33.3 %
        {8, 8, {"linear", 0, 2}, 1e-6, 4},           // point measured, choice not
        {8, 65536, {"binomial", 0, 2}, 1e-6, 4},     // point not measured
        {8, 8, {"binomial", 0, 7}, 1e-6, 4},         // fan-out irrelevant for binomial: +0 %
    };
    const PenaltyTable p = penalty(model, rows);
    EXPECT_EQ(p.source, "plogp");
    ASSERT_EQ(p.entries.size(), 5u);
    EXPECT_EQ(p.entries[0].status, PenaltyStatus::Ok);
    EXPECT_DOUBLE_EQ(*p.entries[0].penalty, 1.0);
    EXPECT_DOUBLE_EQ(*p.entries[0].chosen_time_s, 3e-5);
    EXPECT_DOUBLE_EQ(*p.entries[0].best_time_s, 1.5e-5);
    EXPECT_EQ(*p.entries[0].best, (Method{"binomial", 0, 2}));
    EXPECT_EQ(p.entries[1].status, PenaltyStatus::Ok);
    EXPECT_NEAR(*p.entries[1].penalty, 1.0 / 3.0, 1e-12);
    EXPECT_EQ(p.entries[2].status, PenaltyStatus::ChoiceNotMeasured);
    EXPECT_FALSE(p.entries[2].penalty.has_value());
    EXPECT_FALSE(p.entries[2].chosen_time_s.has_value());
    EXPECT_EQ(*p.entries[2].best, (Method{"binomial", 0, 2}));
    EXPECT_EQ(p.entries[3].status, PenaltyStatus::PointNotMeasured);
    EXPECT_FALSE(p.entries[3].best.has_value());
    EXPECT_FALSE(p.entries[3].penalty.has_value());
    EXPECT_EQ(p.entries[4].status, PenaltyStatus::Ok);
    EXPECT_DOUBLE_EQ(*p.entries[4].penalty, 0.0);
    EXPECT_EQ(p.entries[4].chosen, (Method{"binomial", 0, 2}));

    // The measured decision has no penalty anywhere.
    const PenaltyTable self = penalty(decide_by_measurement(rows, Collective::Bcast), rows);
    for (const Penalty& e : self.entries) {
        EXPECT_EQ(e.status, PenaltyStatus::Ok);
        EXPECT_DOUBLE_EQ(*e.penalty, 0.0);
    }
}

// ---- CSV output ------------------------------------------------------------------------------

TEST(Decision, Csv) {
    const auto rows = parse_result_csv(kSweep, "sweep.csv");
    const DecisionTable d = decide_by_measurement(rows, Collective::Bcast);
    std::ostringstream dc;
    write_decision_csv(dc, {d});
    EXPECT_EQ(dc.str(),
              "source,collective,ranks,bytes,algorithm,segment,fanout,method,time_s,compared\n"
              "measured,bcast,4,8,binomial,0,2,binomial,1.5e-05,3\n"
              "measured,bcast,4,65536,pipeline,8192,2,pipeline 8KB,0.0003,3\n"
              "measured,bcast,8,8,binomial,0,2,binomial,4e-05,1\n");
    DecisionTable model;
    model.coll = Collective::Bcast;
    model.source = "hockney";
    model.entries = {
        {4, 8, {"linear", 0, 2}, 1e-6, 4}, {4, 65536, {"kary", 1024, 3}, 2e-6, 4}, {16, 8, {"linear", 0, 2}, 1e-6, 4}};
    std::ostringstream pc;
    write_penalty_csv(pc, {penalty(model, rows)});
    EXPECT_EQ(pc.str(),
              "source,collective,ranks,bytes,algorithm,segment,fanout,method,best_method,time_s,best_time_s,penalty_"
              "pct,status\n"
              "hockney,bcast,4,8,linear,0,2,linear,binomial,3e-05,1.5e-05,100,ok\n"
              "hockney,bcast,4,65536,kary,1024,3,kary k=3 1KB,pipeline 8KB,,0.0003,,choice-not-measured\n"
              "hockney,bcast,16,8,linear,0,2,linear,,,,,point-not-measured\n");
    EXPECT_NE(error_of([&] { write_decision_csv(std::string("/nonexistent/dir/d.csv"), {d}); }).find("cannot write"),
              std::string::npos);
}

// The switch between two sampled sizes goes where the winners' log-log interpolated times cross:
// linear 1 ms -> 1 s and pipeline 10 ms -> 0.1 s between 1 KiB and 1 MiB cross halfway in
// log(size), at 32 KiB; the rules made from it switch there instead of at 1 MiB.
TEST(Decision, CrossoversMoveTheSwitch) {
    const char* sweep =
        "backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n"
        "smpi,bcast,linear,4,1024,0,2,0,1,0.001,0.001,0.001,yes\n"
        "smpi,bcast,pipeline,4,1024,8192,2,0,1,0.01,0.01,0.01,yes\n"
        "smpi,bcast,linear,4,1048576,0,2,0,1,1.0,1.0,1.0,yes\n"
        "smpi,bcast,pipeline,4,1048576,8192,2,0,1,0.1,0.1,0.1,yes\n"
        "smpi,bcast,linear,8,1024,0,2,0,1,0.001,0.001,0.001,yes\n"  // P = 8: one method, no switch
        "smpi,bcast,linear,8,1048576,0,2,0,1,1.0,1.0,1.0,yes\n";
    const auto rows = parse_result_csv(sweep, "sweep.csv");
    const DecisionTable d = with_crossovers(decide_by_measurement(rows, Collective::Bcast), rows);
    ASSERT_EQ(d.entries.size(), 5u);
    const Decision* x = d.find(4, 32768);
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->method, (Method{"pipeline", 8192, 2}));
    EXPECT_NEAR(x->time_s, 0.01 * std::sqrt(10.0), 1e-6);
    EXPECT_EQ(x->compared, 0);
    const Rules rules = rules_from_decision(d);
    EXPECT_EQ(rules.lookup(Collective::Bcast, 4, 32767).algorithm, "linear");
    EXPECT_EQ(rules.lookup(Collective::Bcast, 4, 32768).algorithm, "pipeline");
    EXPECT_EQ(rules.lookup(Collective::Bcast, 8, 500000).algorithm, "linear");
    // Without the winner's measurement at the other size there is nothing to interpolate.
    std::vector<ResultRow> partial;
    for (const ResultRow& r : rows)
        if (!(r.op.method.algorithm == "pipeline" && r.op.bytes == 1024)) partial.push_back(r);
    EXPECT_EQ(with_crossovers(decide_by_measurement(partial, Collective::Bcast), partial).entries.size(), 4u);
}
