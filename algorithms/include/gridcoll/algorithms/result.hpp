// Result rows: what every backend (backend.hpp) returns for one operation — measured, simulated
// or predicted — with one writer and one parser (CSV now), and the one place repetitions are
// summarised into a median.
//
// CSV columns (a header line first):
//   backend,collective,method,algorithm,ranks,bytes,root,type,op,reps,time_s,min_s,max_s,verified,choice,timing
// - method: the method that ran, in its text form (method.hpp); algorithm: its name alone;
// - bytes: the message size m as in collective.hpp; root: a rank or "rotate" (each in turn);
// - type, op: the reduction's element type and operation (empty for other collectives);
// - time_s: the median over the repetitions, min_s / max_s the extremes (seconds); with per-rank
//   timing the average over the ranks of each rank's time per call, min_s / max_s the extremes
//   over the ranks;
// - verified: yes, no (not checked), FAILED, or model (a prediction);
// - choice: empty when the method was given, else how it was chosen ("auto:rules", ...);
// - timing: how time_s was taken — "root" (the root's clock around one call, between an
//   acknowledgement barrier and every rank's completion report: papers 001 Figure 6, 002
//   §6.1), "per-rank" (each rank's own clock around back-to-back calls, as the OSU
//   micro-benchmarks time collectives) or "model" (a prediction of one call alone).
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/operation.hpp"

namespace gridcoll {

struct TimeSummary {
    double median = 0, min = 0, max = 0;
};

// Median (the mean of the two middle values for an even count), minimum and maximum; all 0
// for no values.
TimeSummary summarize(std::vector<double> values);

struct ResultRow {
    std::string backend;  // openmpi, smpi, emulated, event-plogp, closed-plogp, ...
    Operation op;         // what ran (op.method: the method that ran); the Topology is not written
    int reps = 1;
    TimeSummary time;        // seconds
    std::string verified;    // yes, no, FAILED, model
    std::string choice;      // how the method was chosen; empty when given
    std::string timing;      // root, per-rank, model (see above); empty in older files
    int line = 0;            // parsed rows: the line of the CSV text it came from
};

using RowSink = std::function<void(const ResultRow&)>;

std::string_view result_csv_header();  // without the newline
std::string to_csv(const ResultRow& row);  // one line, without the newline

// Reads CSV rows one line at a time, as they come from a running program. Columns are found by
// the header's names (any order, extra columns ignored), so rows of older gridcoll versions —
// algorithm, segment and fanout columns instead of method — are read too.
class ResultCsvReader {
public:
    explicit ResultCsvReader(std::string origin) : origin_(std::move(origin)) {}
    enum class Line { Header, Row, Other };
    // A header line (it names a time_s column; a repeated one starts over), a row (parsed into
    // `row`; a malformed one throws Error "origin:line: what"), or anything else (blank, '#'
    // comments, a program's other output).
    Line feed(std::string_view line, ResultRow& row);
    std::size_t columns() const { return ncols_; }  // of the last header (0: none yet)

private:
    std::string origin_;
    std::vector<int> col_;  // column of each field, -1 if absent; empty until a header
    std::size_t ncols_ = 0;
    int lineno_ = 0;
};

// A whole CSV text: every row; lines that are neither header nor row must be blank or
// comments, and rows need a header before them. Errors: "origin:line: what".
std::vector<ResultRow> parse_result_csv(std::string_view text, const std::string& origin);
std::vector<ResultRow> load_result_csv(const std::string& path);

}  // namespace gridcoll
