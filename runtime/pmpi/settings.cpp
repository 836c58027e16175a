#include "settings.hpp"

#include <cctype>
#include <charconv>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll::pmpi {

namespace {

struct Value {
    std::string text;
    std::string variable;
};

std::optional<Value> lookup(const Getenv& getenv, const std::string& name) {
    std::string upper = "GRIDCOLL_";
    for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& var : {upper, "OMPI_MCA_gridcoll_" + name})
        if (const char* v = getenv(var.c_str()); v && *v) return Value{v, var};
    return std::nullopt;
}

[[noreturn]] void bad(const Value& v, const std::string& what) {
    throw Error(v.variable + "='" + v.text + "': " + what);
}

long long whole(const Value& v, long long lo, long long hi) {
    long long n = 0;
    const auto r = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    if (r.ec != std::errc() || r.ptr != v.text.data() + v.text.size() || n < lo || n > hi)
        bad(v, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return n;
}

}  // namespace

std::string_view to_string(DecisionSource d) {
    switch (d) {
        case DecisionSource::Builtin: return "builtin";
        case DecisionSource::Rules: return "rules";
        case DecisionSource::Plogp: return "plogp";
    }
    return "?";
}

std::string_view to_string(Progress p) {
    switch (p) {
        case Progress::Calls: return "calls";
        case Progress::Thread: return "thread";
        case Progress::Auto: return "auto";
    }
    return "?";
}

bool Settings::wants_progress_thread() const {
    if (!enabled) return false;
    if (progress != Progress::Auto) return progress == Progress::Thread;
    return topology != "flat" && topology != "node";
}

Settings read_settings(const Getenv& getenv) {
    Settings s;
    if (auto v = lookup(getenv, "enable")) s.enabled = whole(*v, 0, 1) == 1;
    if (auto v = lookup(getenv, "verbose")) s.verbose = static_cast<int>(whole(*v, 0, 2));
    if (auto v = lookup(getenv, "early_duplicate")) s.early_duplicate = whole(*v, 0, 1) == 1;
    if (auto v = lookup(getenv, "cache")) s.cache = static_cast<std::size_t>(whole(*v, 1, 1 << 20));
    if (auto v = lookup(getenv, "topology")) {
        s.topology = v->text;
        s.topology_variable = v->variable;
    }
    if (auto v = lookup(getenv, "rules")) {
        s.rules = v->text;
        s.decision = DecisionSource::Rules;
    }
    if (auto v = lookup(getenv, "decision")) {
        if (v->text == "builtin") s.decision = DecisionSource::Builtin;
        else if (v->text == "rules") s.decision = DecisionSource::Rules;
        else if (v->text == "plogp") s.decision = DecisionSource::Plogp;
        else bad(*v, "expected builtin, rules or plogp");
        if (s.decision == DecisionSource::Rules && s.rules.empty())
            bad(*v, "decision by rules needs a rules file (GRIDCOLL_RULES)");
    }
    if (auto v = lookup(getenv, "min_bytes")) {
        try {
            s.min_bytes = parse_bytes(v->text);
        } catch (const Error& e) {
            bad(*v, e.what());
        }
    }
    if (auto v = lookup(getenv, "progress")) {
        if (v->text == "calls") s.progress = Progress::Calls;
        else if (v->text == "thread") s.progress = Progress::Thread;
        else if (v->text == "auto") s.progress = Progress::Auto;
        else bad(*v, "expected calls, thread or auto");
    }
    for (Collective c : all_collectives()) {
        auto v = lookup(getenv, std::string(to_string(c)) + "_algorithm");
        if (!v) continue;
        try {
            s.forced[static_cast<std::size_t>(c)] = ForcedMethod{parse_method(c, v->text), v->variable};
        } catch (const Error& e) {
            bad(*v, e.what());
        }
    }
    return s;
}

}  // namespace gridcoll::pmpi
