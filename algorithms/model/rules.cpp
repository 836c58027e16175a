// Decision rules files (rules.hpp): parsing with file:line errors, the lookup index, and the
// compact writing of a decision table.
#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>
#include <utility>

#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll::model {

namespace {

std::size_t coll_index(Collective c) { return static_cast<std::size_t>(c); }

std::size_t coll_count() {
    std::size_t n = 0;
    for (Collective c : all_collectives()) n = std::max(n, coll_index(c) + 1);
    return n;
}

std::string where(const std::string& origin, const Rule& r, std::size_t index) {
    return origin + ":" + (r.line > 0 ? std::to_string(r.line) : "rule " + std::to_string(index + 1)) + ": ";
}

std::string line_of(const Rule& r, std::size_t index) {
    return r.line > 0 ? "line " + std::to_string(r.line) : "rule " + std::to_string(index + 1);
}

std::string range_text(std::uint64_t lo, std::uint64_t hi, std::uint64_t min, std::uint64_t any) {
    if (lo == min && hi == any) return "*";
    if (hi == any) return std::to_string(lo) + "-*";
    if (lo == hi) return std::to_string(lo);
    return std::to_string(lo) + "-" + std::to_string(hi);
}
std::string ranks_text(const Rule& r) {
    return range_text(static_cast<std::uint64_t>(r.ranks_lo),
                      r.ranks_hi == kAnyRanks ? kAnyBytes : static_cast<std::uint64_t>(r.ranks_hi), 1, kAnyBytes);
}
std::string bytes_text(const Rule& r) { return range_text(r.bytes_lo, r.bytes_hi, 0, kAnyBytes); }

// ---- parsing ---------------------------------------------------------------------------------

std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> w;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        const std::size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i > start) w.push_back(line.substr(start, i - start));
    }
    return w;
}

std::uint64_t parse_count(std::string_view s, const char* what) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        throw Error(std::string(what) + ": '" + std::string(s) + "' is not a number");
    return v;
}

// "*", "lo-*", "lo-hi" or "n"; `value` parses one end.
template <class F>
std::pair<std::uint64_t, std::uint64_t> parse_range(std::string_view s, std::uint64_t min, std::uint64_t any, F value) {
    if (s == "*") return {min, any};
    const std::size_t dash = s.find('-');
    if (dash == std::string_view::npos) {
        const std::uint64_t v = value(s);
        return {v, v};
    }
    const std::string_view lo = s.substr(0, dash), hi = s.substr(dash + 1);
    const std::uint64_t l = value(lo);
    const std::uint64_t h = hi == "*" ? any : value(hi);
    return {l, h};
}

Rule parse_line(const std::vector<std::string_view>& w) {
    Rule r;
    r.coll = parse_collective(w[0]);
    bool have_ranks = false, have_bytes = false, have_seg = false, have_fan = false;
    for (std::size_t i = 1; i < w.size(); ++i) {
        const std::string_view k = w[i];
        const bool keyword = k == "ranks" || k == "bytes" || k == "segment" || k == "fanout";
        if (!keyword) {
            if (!r.method.algorithm.empty())
                throw Error("unexpected '" + std::string(k) + "' after the method '" + to_string(r.method) +
                            "' (expected ranks, bytes, segment or fanout)");
            r.method = parse_method_text(k);
            continue;
        }
        if (i + 1 >= w.size()) throw Error("'" + std::string(k) + "' needs a value");
        const std::string_view v = w[++i];
        const auto twice = [&](bool& seen) {
            if (seen) throw Error("'" + std::string(k) + "' given twice");
            seen = true;
        };
        if (k == "ranks") {
            twice(have_ranks);
            const auto [lo, hi] =
                parse_range(v, 1, kAnyBytes, [](std::string_view s) { return parse_count(s, "ranks"); });
            if (lo < 1 || lo > static_cast<std::uint64_t>(kAnyRanks - 1) ||
                (hi != kAnyBytes && hi >= static_cast<std::uint64_t>(kAnyRanks)))
                throw Error("ranks '" + std::string(v) + "': communicator sizes must be >= 1");
            r.ranks_lo = static_cast<int>(lo);
            r.ranks_hi = hi == kAnyBytes ? kAnyRanks : static_cast<int>(hi);
        } else if (k == "bytes") {
            twice(have_bytes);
            const auto [lo, hi] = parse_range(v, 0, kAnyBytes, [](std::string_view s) { return parse_bytes(s); });
            r.bytes_lo = lo;
            r.bytes_hi = hi;
        } else if (k == "segment") {
            twice(have_seg);
            r.method.params.segment = parse_bytes(v);
        } else {
            twice(have_fan);
            const std::uint64_t f = parse_count(v, "fanout");
            if (f < 1 || f > 1000000) throw Error("fanout must be >= 1 (got " + std::string(v) + ")");
            r.method.params.fanout = static_cast<int>(f);
        }
    }
    if (r.method.algorithm.empty())
        throw Error("no method (expected e.g. 'bcast ranks 2-16 bytes 0-1023 binomial' or '... kary:k=4:seg=8K')");
    return r;
}

}  // namespace

// ---- defaults and lookup ---------------------------------------------------------------------

const Method& default_method(Collective c) {
    static const std::vector<Method> defaults = [] {
        std::vector<Method> d(coll_count());
        for (Collective k : all_collectives()) {
            const auto algs = algorithms_for(k);
            std::string name = algs.empty() ? std::string() : algs.front()->name;
            for (const Algorithm* a : algs)
                if (a->name == "binomial") name = a->name;
            d[coll_index(k)] = Method{name};
        }
        return d;
    }();
    return defaults[coll_index(c)];
}

Rules::Rules() = default;

Rules::Rules(std::vector<Rule> rules, const std::string& origin) : rules_(std::move(rules)), index_(coll_count()) {
    // Each rule on its own.
    for (std::size_t i = 0; i < rules_.size(); ++i) {
        const Rule& r = rules_[i];
        try {
            if (r.method.params.fanout < 1)
                throw Error("fanout must be >= 1 (got " + std::to_string(r.method.params.fanout) + ")");
            check_method(r.coll, r.method);  // known algorithm, only keys it reads
            if (r.ranks_lo < 1) throw Error("communicator sizes must be >= 1 (got " + std::to_string(r.ranks_lo) + ")");
            if (r.ranks_lo > r.ranks_hi) throw Error("empty ranks range " + ranks_text(r));
            if (r.bytes_lo > r.bytes_hi) throw Error("empty bytes range " + bytes_text(r));
        } catch (const Error& e) {
            throw Error(where(origin, r, i) + e.what());
        }
    }
    // Groups: one per distinct communicator-size range of a collective.
    struct Key {
        std::size_t coll;
        int lo, hi;
        bool operator<(const Key& o) const { return std::tie(coll, lo, hi) < std::tie(o.coll, o.lo, o.hi); }
    };
    std::map<Key, std::vector<std::size_t>> groups;  // -> rule indices, in file order
    for (std::size_t i = 0; i < rules_.size(); ++i)
        groups[{coll_index(rules_[i].coll), rules_[i].ranks_lo, rules_[i].ranks_hi}].push_back(i);
    const Rule* prev_rule = nullptr;
    std::size_t prev_index = 0;
    std::size_t prev_coll = SIZE_MAX;
    for (const auto& [key, idx] : groups) {
        const std::size_t first = idx.front();
        const Rule& r = rules_[first];
        if (prev_rule && prev_coll == key.coll && prev_rule->ranks_hi >= key.lo) {
            // Report on the later line, naming the earlier.
            const bool later = first > prev_index;
            const Rule& at = later ? r : *prev_rule;
            const Rule& other = later ? *prev_rule : r;
            throw Error(where(origin, at, later ? first : prev_index) + std::string(to_string(at.coll)) + " ranks " +
                        ranks_text(at) + " overlaps ranks " + ranks_text(other) + " of " +
                        line_of(other, later ? prev_index : first) +
                        " (communicator-size ranges of one collective must be equal or disjoint)");
        }
        Group g{key.lo, key.hi, {}};
        for (std::size_t i : idx) g.bands.push_back(Band{rules_[i].bytes_lo, rules_[i].bytes_hi, i});
        std::sort(g.bands.begin(), g.bands.end(), [](const Band& a, const Band& b) { return a.lo < b.lo; });
        for (std::size_t b = 1; b < g.bands.size(); ++b)
            if (g.bands[b - 1].hi >= g.bands[b].lo) {
                std::size_t i = g.bands[b - 1].rule, j = g.bands[b].rule;
                if (i > j) std::swap(i, j);  // report on the later line
                throw Error(where(origin, rules_[j], j) + std::string(to_string(rules_[j].coll)) + " ranks " +
                            ranks_text(rules_[j]) + " bytes " + bytes_text(rules_[j]) + " overlaps bytes " +
                            bytes_text(rules_[i]) + " of " + line_of(rules_[i], i));
            }
        index_[key.coll].push_back(std::move(g));
        prev_rule = &r;
        prev_index = first;
        prev_coll = key.coll;
    }
}

const Method* Rules::find(Collective c, int ranks, std::uint64_t bytes) const noexcept {
    const std::size_t ci = coll_index(c);
    if (ci >= index_.size()) return nullptr;
    const auto& groups = index_[ci];
    auto g = std::upper_bound(groups.begin(), groups.end(), ranks, [](int p, const Group& x) { return p < x.lo; });
    if (g == groups.begin()) return nullptr;
    --g;
    if (ranks > g->hi) return nullptr;
    auto b = std::upper_bound(g->bands.begin(), g->bands.end(), bytes,
                              [](std::uint64_t m, const Band& x) { return m < x.lo; });
    if (b == g->bands.begin()) return nullptr;
    --b;
    if (bytes > b->hi) return nullptr;
    return &rules_[b->rule].method;
}

const Method& Rules::lookup(Collective c, int ranks, std::uint64_t bytes) const noexcept {
    const Method* m = find(c, ranks, bytes);
    return m ? *m : default_method(c);
}

// ---- reading ---------------------------------------------------------------------------------

Rules parse_rules(std::string_view text, const std::string& origin) {
    std::vector<Rule> rules;
    int lineno = 0;
    for (std::string_view line : split_lines(text)) {
        ++lineno;
        const std::size_t hash = line.find('#');
        if (hash != std::string_view::npos) line = line.substr(0, hash);
        const auto w = words(line);
        if (w.empty()) continue;
        try {
            Rule r = parse_line(w);
            r.line = lineno;
            rules.push_back(std::move(r));
        } catch (const Error& e) {
            throw Error(origin + ":" + std::to_string(lineno) + ": " + e.what());
        }
    }
    return Rules(std::move(rules), origin);
}

Rules load_rules(const std::string& path) {
    std::string text;
    try {
        text = read_text_file(path);
    } catch (const Error& e) {
        throw Error("rules file: " + std::string(e.what()));
    }
    return parse_rules(text, path);
}

// ---- from a decision table -------------------------------------------------------------------

Rules rules_from_decisions(const std::vector<DecisionTable>& tables) {
    std::vector<Rule> out;
    std::vector<Collective> seen;
    for (const DecisionTable& t : tables) {
        if (std::find(seen.begin(), seen.end(), t.coll) != seen.end())
            throw Error("rules: two decision tables for " + std::string(to_string(t.coll)) +
                        " (one rules set holds one per collective)");
        seen.push_back(t.coll);
        std::vector<Decision> e = t.entries;
        std::sort(e.begin(), e.end(), [](const Decision& a, const Decision& b) {
            return std::tie(a.ranks, a.bytes) < std::tie(b.ranks, b.bytes);
        });
        // Per communicator size: the runs (first size, method) of equal methods.
        using Runs = std::vector<std::pair<std::uint64_t, Method>>;
        std::vector<std::pair<int, Runs>> rows;
        for (const Decision& d : e) {
            if (rows.empty() || rows.back().first != d.ranks) rows.push_back({d.ranks, {}});
            Runs& runs = rows.back().second;
            if (runs.empty())
                runs.push_back({0, d.method});  // the smallest sample extends down to 0 bytes
            else if (!(runs.back().second == d.method))
                runs.push_back({d.bytes, d.method});
        }
        // Adjacent communicator sizes with the same runs share one range.
        for (std::size_t i = 0; i < rows.size();) {
            std::size_t j = i + 1;
            while (j < rows.size() && rows[j].second == rows[i].second) ++j;
            const int lo = i == 0 ? 1 : rows[i].first;
            const int hi = j < rows.size() ? rows[j].first - 1 : kAnyRanks;
            const Runs& runs = rows[i].second;
            for (std::size_t k = 0; k < runs.size(); ++k) {
                Rule r;
                r.coll = t.coll;
                r.ranks_lo = lo;
                r.ranks_hi = hi;
                r.bytes_lo = runs[k].first;
                r.bytes_hi = k + 1 < runs.size() ? runs[k + 1].first - 1 : kAnyBytes;
                r.method = runs[k].second;
                out.push_back(std::move(r));
            }
            i = j;
        }
    }
    return Rules(std::move(out), "decision table");
}

Rules rules_from_decision(const DecisionTable& table) { return rules_from_decisions({table}); }

// ---- writing ---------------------------------------------------------------------------------

std::string to_rules_text(const Rules& rules, std::string_view comment) {
    std::ostringstream out;
    std::size_t start = 0;
    while (start < comment.size()) {
        std::size_t nl = comment.find('\n', start);
        if (nl == std::string_view::npos) nl = comment.size();
        const std::string_view l = comment.substr(start, nl - start);
        out << '#' << (l.empty() ? "" : " ") << l << '\n';
        start = nl + 1;
    }
    out << "# gridcoll decision rules (algorithms/model/README.md): the rule whose ranges hold (P, m), else the fixed "
           "default\n"
        << "# <collective> ranks <lo>-<hi> bytes <lo>-<hi> <method>   (* = no limit; method: algorithm[:k=<fan-out>][:seg=<size>])\n";
    constexpr std::size_t kCols = 4;
    std::vector<std::array<std::string, kCols>> cols;
    std::array<std::size_t, kCols> width{};
    for (const Rule& r : rules.rules()) {
        std::array<std::string, kCols> c{std::string(to_string(r.coll)),
                                         "ranks " + ranks_text(r),
                                         "bytes " + bytes_text(r),
                                         to_string(r.method)};
        for (std::size_t k = 0; k < kCols; ++k) width[k] = std::max(width[k], c[k].size());
        cols.push_back(std::move(c));
    }
    for (const auto& c : cols) {
        for (std::size_t k = 0; k + 1 < kCols; ++k) out << c[k] << std::string(width[k] - c[k].size() + 2, ' ');
        out << c[kCols - 1] << '\n';
    }
    return out.str();
}

void write_rules(std::ostream& out, const Rules& rules, std::string_view comment) {
    out << to_rules_text(rules, comment);
}

void write_rules(const std::string& path, const Rules& rules, std::string_view comment) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw Error("cannot write rules file '" + path + "'");
    write_rules(out, rules, comment);
    out.flush();
    if (!out) throw Error("cannot write rules file '" + path + "'");
}

}  // namespace gridcoll::model
