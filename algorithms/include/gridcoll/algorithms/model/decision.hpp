// Decision functions (paper 002 §6.3): for one collective, (communicator size P, message size m)
// -> the best Method (algorithm, segment size, fan-out), built
//   - from a model: the argmin over a candidate set of the closed-form predictions
//     (closed_forms.hpp), "analyzing predicted performance of the measured methods on the
//     identical message and communicator sizes" (Figure 6 b-d);
//   - from measurement: the method with the least measured time in gridcoll-bench CSV rows
//     (Figure 6 a);
// and the performance penalty of using a model's decision instead of the measured one
// (Figure 7): measured time of the model's choice / best measured time - 1.
//
// Kept apart from any communication code. A decision table becomes a rules file (rules.hpp),
// which gridcoll-bench --algorithm auto and the MPI side consult per operation.
//
// Typical use (what `gridcoll decide` does):
//
//   using namespace gridcoll::model;
//   const ParamSet ps = load_params("boba.toml");
//   const auto cands = make_candidates(Collective::Bcast, CandidateSpec{});   // paper 002's set
//   const DecisionTable t = decide_by_model(Model::PLogP, Collective::Bcast, sizes, ranks,
//                                           ps.levels[0], ps.gamma, cands);
//   write_rules("rules.txt", rules_from_decision(t), "plogp model, boba.toml");   // rules.hpp
//   const auto rows = load_result_csv("sweep.csv");
//   const DecisionTable meas = decide_by_measurement(rows, Collective::Bcast);
//   write_decision_csv("out_decision.csv", {meas, t});
//   write_penalty_csv("out_penalty.csv", {penalty(t, rows)});
//   // then: /usr/bin/python3 validation/decision_maps.py out_decision.csv out_penalty.csv -o out
//
// Methods are compared in canonical form (normalize()): a segment size >= m is no segmentation
// (segment 0, as predict() and Segments do), an algorithm that does not segment has segment 0,
// and one without a fan-out parameter has fanout 2 (MethodParams' default). So measured rows
// taken with any -s / -k match the model's choice whenever they run the same schedule.
//
// Errors are gridcoll::Error naming the file and line or the bad value.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/result.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

// An algorithm with its parameters (gridcoll/method.hpp); the names are the registry's.
using gridcoll::Method;

// The canonical form of `m` for collective `c` at message size `bytes` (see above). Throws Error
// for an algorithm the registry does not know for `c` (listing the valid names) or fanout < 1.
Method normalize(Collective c, const Method& m, std::uint64_t bytes);

// A short human label as the paper's legends write it: "binomial", "pipeline 8KB",
// "kary k=4 1KB" (fan-out only for algorithms that use it; segment only when non-zero).
std::string method_label(Collective c, const Method& m);

// ---- candidates ------------------------------------------------------------------------------

// The candidate set: algorithms x segment sizes x fan-outs. Paper 002 §6.3 uses linear,
// binomial, binary, splitted-binary and pipeline, each unsegmented and with 1 KB and 8 KB
// segments: the defaults (with every algorithm of the collective).
struct CandidateSpec {
    std::vector<std::string> algorithms;                 // empty: every registry algorithm of the collective
    std::vector<std::uint64_t> segments{0, 1024, 8192};  // used only for algorithms that segment
    std::vector<int> fanouts{2};                         // used only for algorithms with a fan-out
};

// Expands the spec, in order algorithm, then segment, then fan-out (the order breaks ties in
// decide_by_model: the first candidate wins, so list 0 first to prefer no segmentation).
// An algorithm that does not segment gets segment 0 only, one without fan-out gets fanout 2
// only; duplicates are dropped. Throws Error for an unknown algorithm (listing the valid names),
// an empty segment or fan-out list, or a fan-out < 1.
std::vector<Method> make_candidates(Collective c, const CandidateSpec& spec);

// ---- decision tables -------------------------------------------------------------------------

struct Decision {
    int ranks = 0;            // P
    std::uint64_t bytes = 0;  // m
    Method method;            // canonical (normalize())
    double time_s = 0;        // predicted (model) or measured (measurement) time of `method`
    int compared = 0;         // candidates with a prediction / methods measured at this point
};

struct DecisionTable {
    Collective coll = Collective::Bcast;
    std::string source;                   // "hockney", "loggp", "plogp" or "measured"
    std::vector<Decision> entries;        // sorted by (ranks, bytes), one per point
    std::vector<std::string> unmodelled;  // candidate algorithms dropped: no closed form under the model

    // The entry at exactly (P, m), or nullptr.
    const Decision* find(int ranks, std::uint64_t bytes) const;
};

// The model's decision function: for every P in `ranks` and m in `bytes`, the argmin over
// `candidates` of predict(model, coll, ...) (ties: the earlier candidate). Candidates whose
// algorithm has no closed form under the model are dropped (listed in `unmodelled`). Throws
// Error when no candidate is left, a list is empty, P < 1, or `level` lacks the model's
// parameters. `gamma` is the reduction compute time per byte (reduce only).
DecisionTable decide_by_model(Model model, Collective coll, const std::vector<std::uint64_t>& bytes,
                              const std::vector<int>& ranks, const LevelParams& level, double gamma,
                              const std::vector<Method>& candidates);

// ---- measurements ----------------------------------------------------------------------------

// Measurements are result rows (gridcoll/result.hpp: parse_result_csv / load_result_csv read
// gridcoll-bench's and gridcoll simulate's CSV); the method as printed (not normalised), whose
// algorithm may be "native" or (older files) "auto:...".

// The measured decision function of `coll`: at every (P, m) present in `rows`, the method with
// the least time_s (the median of the repetitions). Rows of other collectives, rows whose
// verification FAILED and rows whose algorithm is not a registry algorithm ("native",
// "auto:...") are ignored. A method measured more than once at a point counts with its least
// time_s. source = "measured".
DecisionTable decide_by_measurement(const std::vector<ResultRow>& rows, Collective coll);

// The measured decisions with the switch between two sampled sizes moved to where it belongs:
// where the winners at the two samples, m1 < m2, have equal times when each one's time is
// interpolated linearly in log(time) over log(size) between its two measurements (both must be
// in `rows`). The result has, per communicator size, an extra entry at that crossover size m*
// with m2's winner (time interpolated, compared = 0), so a rules file made from it switches at
// m* instead of at m2. Without the crossing inside (m1, m2) (or a measurement) nothing changes.
DecisionTable with_crossovers(const DecisionTable& measured, const std::vector<ResultRow>& rows);

// ---- penalty (Figure 7) ----------------------------------------------------------------------

enum class PenaltyStatus {
    Ok,                 // penalty = measured(chosen) / best measured - 1
    ChoiceNotMeasured,  // the point was measured, but not with the chosen method
    PointNotMeasured,   // nothing of this collective was measured at (P, m)
};
std::string_view to_string(PenaltyStatus s);  // "ok", "choice-not-measured", "point-not-measured"

struct Penalty {
    int ranks = 0;
    std::uint64_t bytes = 0;
    Method chosen;                        // the decision's method
    std::optional<Method> best;           // the best measured method (absent: PointNotMeasured)
    std::optional<double> chosen_time_s;  // measured time of `chosen`
    std::optional<double> best_time_s;
    std::optional<double> penalty;  // fraction: 0.25 = 25 % slower (Ok only)
    PenaltyStatus status = PenaltyStatus::PointNotMeasured;
};

struct PenaltyTable {
    Collective coll = Collective::Bcast;
    std::string source;            // the decision table's source
    std::vector<Penalty> entries;  // one per decision entry, same order
};

// For every entry of `decision`: the measured time of its method (canonical comparison, least
// time_s if measured more than once) over the best measured time at that point, minus 1,
// using the same row filter as decide_by_measurement. A best time of 0 gives penalty 0 when the
// choice also took 0 and +infinity otherwise.
PenaltyTable penalty(const DecisionTable& decision, const std::vector<ResultRow>& rows);

// ---- CSV output (read by validation/decision_maps.py) ------------------------------------------

// Decision CSV, one row per entry of every table:
//   source,collective,ranks,bytes,algorithm,segment,fanout,method,time_s,compared
// (method = method_label(), time_s in seconds with 9 significant digits).
void write_decision_csv(std::ostream& out, const std::vector<DecisionTable>& tables);
void write_decision_csv(const std::string& path, const std::vector<DecisionTable>& tables);

// Penalty CSV, one row per entry of every table:
//   source,collective,ranks,bytes,algorithm,segment,fanout,method,best_method,time_s,best_time_s,
//   penalty_pct,status
// time_s = measured time of the chosen method; penalty_pct = 100 * penalty. Fields that do not
// exist for the status (e.g. time_s when the choice was not measured) are empty.
void write_penalty_csv(std::ostream& out, const std::vector<PenaltyTable>& tables);
void write_penalty_csv(const std::string& path, const std::vector<PenaltyTable>& tables);

}  // namespace gridcoll::model
