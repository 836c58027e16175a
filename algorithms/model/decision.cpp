// Decision functions of paper 002 §6.3 (decision.hpp): the model's argmin over a candidate set,
// the measured best method, and the penalty of the model's choice (Figures 6 and 7).
//
// References: [P002] §6.3, Figures 6 and 7 (algorithms/REFERENCES.md).
#include <tuple>
#include "gridcoll/algorithms/model/decision.hpp"
#include "gridcoll/algorithms/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <utility>

#include "gridcoll/algorithms/registry.hpp"

namespace gridcoll::model {

namespace {

// The registry entry of (c, name), or nullptr (no exception: used to filter CSV rows).
const Algorithm* registry_entry(Collective c, std::string_view name) {
    for (const Algorithm& a : all_algorithms())
        if (a.coll == c && a.name == name) return &a;
    return nullptr;
}

std::string num(double v) { return format_number(v); }

std::string size_label(std::uint64_t b) {
    if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + "MB";
    if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "KB";
    return std::to_string(b) + "B";
}

// ---- measured points -------------------------------------------------------------------------

using Point = std::pair<int, std::uint64_t>;
struct Measured {
    Method method;  // canonical
    double time_s;
};
// Per measured point, the distinct canonical methods with their least time_s, in first-seen order.
using MeasuredPoints = std::map<Point, std::vector<Measured>>;

MeasuredPoints measured_points(const std::vector<ResultRow>& rows, Collective coll) {
    MeasuredPoints pts;
    for (const ResultRow& r : rows) {
        if (r.op.coll != coll || r.verified == "FAILED") continue;
        if (!registry_entry(coll, r.op.method.algorithm)) continue;  // native, auto:..., other builds' names
        if (r.op.method.params.fanout < 1) continue;
        const Method m = normalize(coll, r.op.method, r.op.bytes);
        auto& v = pts[{r.op.ranks, r.op.bytes}];
        auto it = std::find_if(v.begin(), v.end(), [&](const Measured& x) { return x.method == m; });
        if (it == v.end())
            v.push_back({m, r.time.median});
        else
            it->time_s = std::min(it->time_s, r.time.median);
    }
    return pts;
}

const Measured& best_of(const std::vector<Measured>& v) {
    return *std::min_element(v.begin(), v.end(),
                             [](const Measured& a, const Measured& b) { return a.time_s < b.time_s; });
}

// ---- CSV writing -----------------------------------------------------------------------------

std::ofstream open_out(const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw Error("cannot write '" + path + "'");
    return out;
}

void check_written(std::ofstream& out, const std::string& path) {
    out.flush();
    if (!out) throw Error("cannot write '" + path + "'");
}

}  // namespace

// ---- methods and candidates ------------------------------------------------------------------

Method normalize(Collective c, const Method& m, std::uint64_t bytes) {
    const Algorithm& a = find_algorithm(c, m.algorithm);
    if (m.params.fanout < 1) throw Error(a.name + ": fan-out must be >= 1 (got " + std::to_string(m.params.fanout) + ")");
    Method n = m;
    if (!a.segmented || n.params.segment >= bytes) n.params.segment = 0;
    if (!a.uses_fanout) n.params.fanout = 2;
    return n;
}

std::string method_label(Collective c, const Method& m) {
    std::string s = m.algorithm;
    const Algorithm* a = registry_entry(c, m.algorithm);
    if (a && a->uses_fanout) s += " k=" + std::to_string(m.params.fanout);
    if (m.params.segment > 0) s += " " + size_label(m.params.segment);
    return s;
}

std::vector<Method> make_candidates(Collective c, const CandidateSpec& spec) {
    if (spec.segments.empty())
        throw Error("candidate set: the list of segment sizes is empty (use 0 for no segmentation)");
    if (spec.fanouts.empty()) throw Error("candidate set: the list of fan-outs is empty");
    for (int k : spec.fanouts)
        if (k < 1) throw Error("candidate set: fan-out must be >= 1 (got " + std::to_string(k) + ")");
    std::vector<const Algorithm*> algs;
    if (spec.algorithms.empty())
        algs = algorithms_for(c);
    else
        for (const auto& name : spec.algorithms) algs.push_back(&find_algorithm(c, name));
    std::vector<Method> out;
    for (const Algorithm* a : algs) {
        const std::vector<std::uint64_t> segs = a->segmented ? spec.segments : std::vector<std::uint64_t>{0};
        const std::vector<int> fans = a->uses_fanout ? spec.fanouts : std::vector<int>{2};
        for (std::uint64_t s : segs)
            for (int k : fans) {
                Method m{a->name, s, k};
                if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(std::move(m));
            }
    }
    return out;
}

// ---- decision tables -------------------------------------------------------------------------

const Decision* DecisionTable::find(int ranks, std::uint64_t bytes) const {
    const auto it =
        std::lower_bound(entries.begin(), entries.end(), std::make_pair(ranks, bytes),
                         [](const Decision& d, const Point& p) { return std::make_pair(d.ranks, d.bytes) < p; });
    if (it == entries.end() || it->ranks != ranks || it->bytes != bytes) return nullptr;
    return &*it;
}

DecisionTable decide_by_model(Model model, Collective coll, const std::vector<std::uint64_t>& bytes,
                              const std::vector<int>& ranks, const LevelParams& level, double gamma,
                              const std::vector<Method>& candidates) {
    if (bytes.empty()) throw Error("decision: the list of message sizes is empty");
    if (ranks.empty()) throw Error("decision: the list of communicator sizes is empty");
    if (candidates.empty()) throw Error("decision: the candidate set is empty");
    for (int P : ranks)
        if (P < 1) throw Error("decision: communicator size must be >= 1, got " + std::to_string(P));
    DecisionTable t;
    t.coll = coll;
    t.source = std::string(to_string(model));
    std::vector<Method> cands;
    for (const Method& m : candidates) {
        normalize(coll, m, 0);  // throws for an unknown algorithm or a bad fan-out
        if (has_formula(model, coll, m.algorithm))
            cands.push_back(m);
        else if (std::find(t.unmodelled.begin(), t.unmodelled.end(), m.algorithm) == t.unmodelled.end())
            t.unmodelled.push_back(m.algorithm);
    }
    if (cands.empty()) {
        std::string names;
        for (const auto& n : t.unmodelled) names += (names.empty() ? "" : ", ") + n;
        throw Error("decision: no candidate " + std::string(to_string(coll)) +
                    " algorithm has a closed form under the " + t.source + " model (candidates: " + names + ")");
    }
    std::vector<int> Ps = ranks;
    std::sort(Ps.begin(), Ps.end());
    Ps.erase(std::unique(Ps.begin(), Ps.end()), Ps.end());
    std::vector<std::uint64_t> ms = bytes;
    std::sort(ms.begin(), ms.end());
    ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
    t.entries.reserve(Ps.size() * ms.size());
    for (int P : Ps)
        for (std::uint64_t m : ms) {
            const Method* best = nullptr;
            double best_t = std::numeric_limits<double>::infinity();
            int compared = 0;
            for (const Method& c : cands) {
                const auto p = predict(model, coll, c.algorithm, P, static_cast<double>(m),
                                       static_cast<double>(c.params.segment), c.params.fanout, level, gamma);
                if (!p) continue;
                ++compared;
                if (!best || *p < best_t) {
                    best = &c;
                    best_t = *p;
                }
            }
            if (!best)  // cannot happen: has_formula said every candidate has one
                throw Error("decision: no prediction at P = " + std::to_string(P) + ", m = " + std::to_string(m));
            t.entries.push_back(Decision{P, m, normalize(coll, *best, m), best_t, compared});
        }
    return t;
}

// ---- measurements ----------------------------------------------------------------------------

DecisionTable decide_by_measurement(const std::vector<ResultRow>& rows, Collective coll) {
    DecisionTable t;
    t.coll = coll;
    t.source = "measured";
    for (const auto& [pt, v] : measured_points(rows, coll)) {
        const Measured& b = best_of(v);
        t.entries.push_back(Decision{pt.first, pt.second, b.method, b.time_s, static_cast<int>(v.size())});
    }
    return t;
}

DecisionTable with_crossovers(const DecisionTable& measured, const std::vector<ResultRow>& rows) {
    const MeasuredPoints pts = measured_points(rows, measured.coll);
    // Time of the method that won at one size when run at another: rows carry the method as given,
    // so the same row method text is looked up at both sizes.
    std::map<std::tuple<int, std::uint64_t, std::string>, double> by_text;
    std::map<std::pair<int, std::uint64_t>, std::string> winner_text;
    for (const ResultRow& r : rows) {
        if (r.op.coll != measured.coll || r.verified == "FAILED" || !registry_entry(r.op.coll, r.op.method.algorithm)) continue;
        const auto key = std::make_tuple(r.op.ranks, r.op.bytes, to_string(r.op.method));
        auto [it, fresh] = by_text.try_emplace(key, r.time.median);
        if (!fresh) it->second = std::min(it->second, r.time.median);
    }
    for (const Decision& d : measured.entries) {
        double best = std::numeric_limits<double>::infinity();
        for (const auto& [key, t] : by_text)
            if (std::get<0>(key) == d.ranks && std::get<1>(key) == d.bytes && t < best) {
                best = t;
                winner_text[{d.ranks, d.bytes}] = std::get<2>(key);
            }
    }
    DecisionTable out = measured;
    out.entries.clear();
    for (std::size_t i = 0; i < measured.entries.size(); ++i) {
        const Decision& a = measured.entries[i];
        out.entries.push_back(a);
        if (i + 1 == measured.entries.size()) break;
        const Decision& b = measured.entries[i + 1];
        if (b.ranks != a.ranks || b.method == normalize(measured.coll, a.method, b.bytes) || a.bytes == 0) continue;
        const std::string& ma = winner_text[{a.ranks, a.bytes}];
        const std::string& mb = winner_text[{b.ranks, b.bytes}];
        const auto t = [&](const std::string& m, std::uint64_t bytes) {
            const auto it = by_text.find({a.ranks, bytes, m});
            return it == by_text.end() ? -1.0 : it->second;
        };
        const double a1 = t(ma, a.bytes), a2 = t(ma, b.bytes), b1 = t(mb, a.bytes), b2 = t(mb, b.bytes);
        if (a1 <= 0 || a2 <= 0 || b1 <= 0 || b2 <= 0) continue;
        // ln t_A(x) = ln a1 + x ln(a2/a1), ln t_B(x) = ln b1 + x ln(b2/b1), x = ln(m/m1) / ln(m2/m1).
        const double slope = std::log(a2 / a1) - std::log(b2 / b1);
        if (slope <= 0) continue;
        const double x = std::log(b1 / a1) / slope;
        if (!(x > 0 && x < 1)) continue;
        const double m = static_cast<double>(a.bytes) * std::pow(static_cast<double>(b.bytes) / static_cast<double>(a.bytes), x);
        const auto cross = static_cast<std::uint64_t>(std::ceil(m * (1 - 1e-12)));  // (rounding noise of exp/log)
        if (cross <= a.bytes || cross >= b.bytes) continue;
        const Method how = normalize(measured.coll, b.method, cross);
        out.entries.push_back(Decision{a.ranks, cross, how, std::exp(std::log(b1) + x * std::log(b2 / b1)), 0});
    }
    return out;
}

// ---- penalty ---------------------------------------------------------------------------------

std::string_view to_string(PenaltyStatus s) {
    switch (s) {
        case PenaltyStatus::Ok:
            return "ok";
        case PenaltyStatus::ChoiceNotMeasured:
            return "choice-not-measured";
        case PenaltyStatus::PointNotMeasured:
            return "point-not-measured";
    }
    return "?";
}

PenaltyTable penalty(const DecisionTable& decision, const std::vector<ResultRow>& rows) {
    const MeasuredPoints pts = measured_points(rows, decision.coll);
    PenaltyTable t;
    t.coll = decision.coll;
    t.source = decision.source;
    t.entries.reserve(decision.entries.size());
    for (const Decision& d : decision.entries) {
        Penalty p;
        p.ranks = d.ranks;
        p.bytes = d.bytes;
        p.chosen = normalize(decision.coll, d.method, d.bytes);
        const auto it = pts.find({d.ranks, d.bytes});
        if (it == pts.end()) {
            p.status = PenaltyStatus::PointNotMeasured;
        } else {
            const Measured& b = best_of(it->second);
            p.best = b.method;
            p.best_time_s = b.time_s;
            const auto c = std::find_if(it->second.begin(), it->second.end(),
                                        [&](const Measured& x) { return x.method == p.chosen; });
            if (c == it->second.end()) {
                p.status = PenaltyStatus::ChoiceNotMeasured;
            } else {
                p.status = PenaltyStatus::Ok;
                p.chosen_time_s = c->time_s;
                if (b.time_s > 0)
                    p.penalty = c->time_s / b.time_s - 1.0;
                else
                    p.penalty = c->time_s > 0 ? std::numeric_limits<double>::infinity() : 0.0;
            }
        }
        t.entries.push_back(std::move(p));
    }
    return t;
}

// ---- CSV output ------------------------------------------------------------------------------

void write_decision_csv(std::ostream& out, const std::vector<DecisionTable>& tables) {
    out << "source,collective,ranks,bytes,algorithm,segment,fanout,method,time_s,compared\n";
    for (const DecisionTable& t : tables)
        for (const Decision& d : t.entries)
            out << t.source << ',' << to_string(t.coll) << ',' << d.ranks << ',' << d.bytes << ',' << d.method.algorithm
                << ',' << d.method.params.segment << ',' << d.method.params.fanout << ',' << method_label(t.coll, d.method) << ','
                << num(d.time_s) << ',' << d.compared << '\n';
}

void write_decision_csv(const std::string& path, const std::vector<DecisionTable>& tables) {
    auto out = open_out(path);
    write_decision_csv(out, tables);
    check_written(out, path);
}

void write_penalty_csv(std::ostream& out, const std::vector<PenaltyTable>& tables) {
    out << "source,collective,ranks,bytes,algorithm,segment,fanout,method,best_method,time_s,best_time_s,penalty_pct,"
           "status\n";
    for (const PenaltyTable& t : tables)
        for (const Penalty& p : t.entries) {
            out << t.source << ',' << to_string(t.coll) << ',' << p.ranks << ',' << p.bytes << ',' << p.chosen.algorithm
                << ',' << p.chosen.params.segment << ',' << p.chosen.params.fanout << ',' << method_label(t.coll, p.chosen) << ','
                << (p.best ? method_label(t.coll, *p.best) : "") << ','
                << (p.chosen_time_s ? num(*p.chosen_time_s) : "") << ',' << (p.best_time_s ? num(*p.best_time_s) : "")
                << ',' << (p.penalty ? num(100.0 * *p.penalty) : "") << ',' << to_string(p.status) << '\n';
        }
}

void write_penalty_csv(const std::string& path, const std::vector<PenaltyTable>& tables) {
    auto out = open_out(path);
    write_penalty_csv(out, tables);
    check_written(out, path);
}

}  // namespace gridcoll::model
