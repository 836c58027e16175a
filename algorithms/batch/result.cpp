#include "gridcoll/algorithms/result.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gridcoll/algorithms/text.hpp"

namespace gridcoll {

TimeSummary summarize(std::vector<double> v) {
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    return {median, v.front(), v.back()};
}

namespace {

// Columns, in the order the writer prints them; SEGMENT and FANOUT only in older files.
// COUNTS: the count pattern of an irregular collective (empty for the others).
enum Field { BACKEND, COLL, METHOD, ALGORITHM, RANKS, BYTES, ROOT, TYPE, OP, REPS, TIME, MIN, MAX, VERIFIED, CHOICE,
             TIMING, COUNTS, SEGMENT, FANOUT, NFIELDS };
constexpr const char* kNames[NFIELDS] = {"backend", "collective", "method", "algorithm", "ranks",  "bytes",
                                         "root",    "type",       "op",     "reps",      "time_s", "min_s",
                                         "max_s",   "verified",   "choice", "timing",    "counts", "segment",
                                         "fanout"};
constexpr int kWritten = COUNTS + 1;

std::string num(double v) { return format_number(v); }

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> f;
    std::size_t start = 0;
    for (;;) {
        const std::size_t c = line.find(',', start);
        f.push_back(trim(line.substr(start, c == std::string_view::npos ? std::string_view::npos : c - start)));
        if (c == std::string_view::npos) return f;
        start = c + 1;
    }
}

template <class T>
bool whole(std::string_view s, T& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool real(std::string_view s, double& out) {
    if (s.empty()) return false;
    const std::string t(s);  // strtod reads every form printf writes (inf, nan, 1e-05)
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size();
}

std::string no_commas(std::string s) {
    std::replace(s.begin(), s.end(), ',', ';');
    return s;
}

}  // namespace

std::string_view result_csv_header() {
    static const std::string h = [] {
        std::string s;
        for (int i = 0; i < kWritten; ++i) s += (i ? "," : "") + std::string(kNames[i]);
        return s;
    }();
    return h;
}

std::string to_csv(const ResultRow& r) {
    const Operation& op = r.op;
    const bool reduction = is_reduction(op.coll);
    std::string s;
    s.reserve(160);
    s += no_commas(r.backend) + ',' + std::string(to_string(op.coll)) + ',' + to_string(op.method) + ',' +
         op.method.algorithm + ',' + std::to_string(op.ranks) + ',' +
         std::to_string(op.coll == Collective::Barrier ? 0 : op.bytes) + ',' +
         (op.root == kEveryRoot ? std::string("rotate") : std::to_string(op.root)) + ',' +
         (reduction ? std::string(to_string(op.type)) : "") + ',' + (reduction ? std::string(to_string(op.op)) : "") +
         ',' + std::to_string(r.reps) + ',' + num(r.time.median) + ',' + num(r.time.min) + ',' + num(r.time.max) + ',' +
         no_commas(r.verified) + ',' + no_commas(r.choice) + ',' + no_commas(r.timing) + ',' +
         (is_irregular(op.coll) ? std::string(to_string(op.counts)) : "");
    return s;
}

ResultCsvReader::Line ResultCsvReader::feed(std::string_view line, ResultRow& row) {
    ++lineno_;
    line = trim(line);
    if (line.empty() || line.front() == '#') return Line::Other;
    const auto f = fields(line);
    const auto where = [&] { return origin_ + ":" + std::to_string(lineno_) + ": "; };
    if (std::find(f.begin(), f.end(), "time_s") != f.end()) {
        col_.assign(NFIELDS, -1);
        for (std::size_t i = 0; i < f.size(); ++i)
            for (int k = 0; k < NFIELDS; ++k)
                if (f[i] == kNames[k]) col_[static_cast<std::size_t>(k)] = static_cast<int>(i);
        for (int k : {COLL, RANKS, BYTES, TIME})
            if (col_[static_cast<std::size_t>(k)] < 0)
                throw Error(where() + "header has no column '" + kNames[k] + "'");
        if (col_[METHOD] < 0 && col_[ALGORITHM] < 0) throw Error(where() + "header has no column 'method' (or 'algorithm')");
        ncols_ = f.size();
        return Line::Header;
    }
    if (col_.empty() || f.size() != ncols_) return Line::Other;
    const auto field = [&](int k) -> std::string_view {
        const int c = col_[static_cast<std::size_t>(k)];
        return c < 0 ? std::string_view() : f[static_cast<std::size_t>(c)];
    };
    const auto bad = [&](int k) {
        return Error(where() + kNames[k] + ": '" + std::string(field(k)) + "' is not a valid value");
    };
    ResultRow r;
    r.line = lineno_;
    r.backend = std::string(field(BACKEND));
    Operation& op = r.op;
    try {
        op.coll = parse_collective(field(COLL));
        if (col_[METHOD] >= 0) {
            op.method = parse_method_text(field(METHOD));
        } else {  // older files: algorithm, segment, fanout (the algorithm may be "auto:<name>")
            op.method.algorithm = std::string(field(ALGORITHM));
            if (op.method.algorithm.empty()) throw Error("empty algorithm");
            if (col_[SEGMENT] >= 0 && !whole(field(SEGMENT), op.method.params.segment)) throw bad(SEGMENT);
            if (col_[FANOUT] >= 0 && (!whole(field(FANOUT), op.method.params.fanout) || op.method.params.fanout < 0))
                throw bad(FANOUT);
        }
        if (is_reduction(op.coll) && !field(TYPE).empty()) op.type = parse_elem_type(field(TYPE));
        if (is_reduction(op.coll) && !field(OP).empty()) op.op = parse_reduce_op(field(OP));
        if (is_irregular(op.coll) && !field(COUNTS).empty()) op.counts = parse_count_pattern(field(COUNTS));
    } catch (const Error& e) {
        const std::string what = e.what();
        throw Error(what.rfind(origin_, 0) == 0 ? what : where() + what);
    }
    if (!whole(field(RANKS), op.ranks) || op.ranks < 1) throw bad(RANKS);
    if (!whole(field(BYTES), op.bytes)) throw bad(BYTES);
    if (field(ROOT) == "rotate") op.root = kEveryRoot;
    else if (!field(ROOT).empty() && !whole(field(ROOT), op.root)) throw bad(ROOT);
    if (!field(REPS).empty() && !whole(field(REPS), r.reps)) throw bad(REPS);
    if (!real(field(TIME), r.time.median) || !(r.time.median >= 0) || !std::isfinite(r.time.median)) throw bad(TIME);
    r.time.min = r.time.max = r.time.median;
    if (col_[MIN] >= 0 && !real(field(MIN), r.time.min)) throw bad(MIN);
    if (col_[MAX] >= 0 && !real(field(MAX), r.time.max)) throw bad(MAX);
    r.verified = std::string(field(VERIFIED));
    r.choice = std::string(field(CHOICE));
    r.timing = std::string(field(TIMING));
    row = std::move(r);
    return Line::Row;
}

std::vector<ResultRow> parse_result_csv(std::string_view text, const std::string& origin) {
    ResultCsvReader reader(origin);
    std::vector<ResultRow> rows;
    bool header = false;
    int lineno = 0;
    for (std::string_view line : split_lines(text)) {
        ++lineno;
        ResultRow r;
        switch (reader.feed(line, r)) {
            case ResultCsvReader::Line::Header: header = true; break;
            case ResultCsvReader::Line::Row: rows.push_back(std::move(r)); break;
            case ResultCsvReader::Line::Other: {
                const std::string_view t = trim(line);
                if (t.empty() || t.front() == '#') break;
                const std::string where = origin + ":" + std::to_string(lineno) + ": ";
                if (!header)
                    throw Error(where + "no header line before the data (expected " + std::string(result_csv_header()) + ")");
                throw Error(where + "expected the header's " + std::to_string(reader.columns()) + " fields, got " +
                            std::to_string(fields(t).size()));
            }
        }
    }
    return rows;
}

std::vector<ResultRow> load_result_csv(const std::string& path) { return parse_result_csv(read_text_file(path), path); }

}  // namespace gridcoll
