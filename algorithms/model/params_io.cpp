// Reading and writing model parameter files (TOML, toml++ 3.3): the format is documented in
// include/gridcoll/model/params_io.hpp and algorithms/model/README.md. The parameters are those
// of paper 002 §3 (Hockney alpha/beta, LogGP L/o/g/G, PLogP L/os/or/g) and paper 000 §2.1.
// Errors read "file:line:column: key: what" at the offending TOML node.
//
// References: [P002] §3; [P000] §2.1 (algorithms/REFERENCES.md).
#include "gridcoll/algorithms/model/params_io.hpp"
#include "gridcoll/algorithms/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>

#include <toml++/toml.h>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::model {

namespace {

constexpr std::uintmax_t kMaxFileBytes = 64u << 20;

// ---- reading --------------------------------------------------------------------------------

class Reader {
public:
    explicit Reader(const std::string& origin) : origin_(origin) {}

    [[noreturn]] void fail(const toml::source_region& at, const std::string& key, const std::string& what) const {
        const auto line = std::max<std::uint32_t>(1, at.begin.line);
        const auto col = std::max<std::uint32_t>(1, at.begin.column);
        throw Error(origin_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                    (key.empty() ? "" : key + ": ") + what);
    }

    // Rejects any key of `t` not in `allowed`.
    void only_keys(const toml::table& t, const std::string& path, std::initializer_list<std::string_view> allowed) const {
        for (auto&& [k, v] : t) {
            bool ok = false;
            for (auto a : allowed) ok = ok || k.str() == a;
            if (!ok) {
                std::string list;
                for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
                fail(v.source(), join(path, k.str()), "unknown key (allowed: " + list + ")");
            }
        }
    }

    const toml::node& need(const toml::table& t, const std::string& path, std::string_view key) const {
        const toml::node* n = t.get(key);
        if (n == nullptr) fail(t.source(), join(path, key), "missing required key");
        return *n;
    }

    double number(const toml::node& n, const std::string& key, bool allow_negative = false) const {
        double v;
        if (const auto* f = n.as_floating_point()) {
            v = f->get();
        } else if (const auto* i = n.as_integer()) {
            v = static_cast<double>(i->get());
        } else {
            fail(n.source(), key, "expected a number, got " + type_name(n));
        }
        if (!std::isfinite(v)) fail(n.source(), key, "not a finite number");
        if (!allow_negative && v < 0) fail(n.source(), key, "must be >= 0, got " + fmt(v));
        return v;
    }

    std::string string(const toml::node& n, const std::string& key) const {
        const auto* s = n.as_string();
        if (s == nullptr) fail(n.source(), key, "expected a string, got " + type_name(n));
        return s->get();
    }

    const toml::table& table(const toml::node& n, const std::string& key) const {
        const auto* t = n.as_table();
        if (t == nullptr) fail(n.source(), key, "expected a table, got " + type_name(n));
        return *t;
    }

    // A number (constant function) or [[bytes, value], ...].
    SizeFunction size_function(const toml::node& n, const std::string& key, bool allow_negative = false) const {
        if (n.is_number()) return SizeFunction::constant(number(n, key, allow_negative));
        const auto* arr = n.as_array();
        if (arr == nullptr)
            fail(n.source(), key, "expected a number or a list of [bytes, value] points, got " + type_name(n));
        if (arr->empty()) fail(n.source(), key, "empty point list");
        std::vector<std::pair<double, double>> pts;
        pts.reserve(arr->size());
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const toml::node& e = (*arr)[i];
            const std::string ek = key + "[" + std::to_string(i) + "]";
            const auto* pair = e.as_array();
            if (pair == nullptr || pair->size() != 2)
                fail(e.source(), ek, "expected a point [bytes, value], got " + describe(e));
            const double x = number((*pair)[0], ek + "[0]");
            const double y = number((*pair)[1], ek + "[1]", allow_negative);
            if (!pts.empty() && !(x > pts.back().first))
                fail(e.source(), ek, "sizes must increase strictly (" + fmt(pts.back().first) + " then " + fmt(x) + ")");
            pts.emplace_back(x, y);
        }
        return SizeFunction(std::move(pts));
    }

    static std::string join(const std::string& path, std::string_view key) {
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    }

    static std::string fmt(double v) { return format_number(v); }

private:
    static std::string type_name(const toml::node& n) {
        switch (n.type()) {
            case toml::node_type::table: return "a table";
            case toml::node_type::array: return "an array";
            case toml::node_type::string: return "a string";
            case toml::node_type::integer: return "an integer";
            case toml::node_type::floating_point: return "a float";
            case toml::node_type::boolean: return "a boolean";
            case toml::node_type::date: return "a date";
            case toml::node_type::time: return "a time";
            case toml::node_type::date_time: return "a date-time";
            default: return "nothing";
        }
    }
    static std::string describe(const toml::node& n) {
        if (const auto* a = n.as_array()) return "an array of " + std::to_string(a->size()) + " values";
        return type_name(n);
    }

    const std::string& origin_;
};

// Each reader takes a table's keys in its struct's order; `x(key)` reads a number, `f(key)` a
// size function, both with errors naming path.key.
PLogPParams read_plogp(const Reader& rd, const toml::table& t, const std::string& path) {
    rd.only_keys(t, path, {"L", "os", "or", "g"});
    const auto f = [&](const char* k) { return rd.size_function(rd.need(t, path, k), path + "." + k); };
    return PLogPParams{rd.number(rd.need(t, path, "L"), path + ".L"), f("os"), f("or"), f("g")};
}

LogGPParams read_loggp(const Reader& rd, const toml::table& t, const std::string& path) {
    rd.only_keys(t, path, {"L", "o", "g", "G"});
    const auto x = [&](const char* k) { return rd.number(rd.need(t, path, k), path + "." + k); };
    return LogGPParams{x("L"), x("o"), x("g"), x("G")};
}

HockneyParams read_hockney(const Reader& rd, const toml::table& t, const std::string& path) {
    rd.only_keys(t, path, {"alpha", "beta"});
    return HockneyParams{rd.size_function(rd.need(t, path, "alpha"), path + ".alpha", /*allow_negative=*/true),
                         rd.size_function(rd.need(t, path, "beta"), path + ".beta")};
}

// ---- writing --------------------------------------------------------------------------------

// Shortest text that reads back as exactly `v` (valid TOML: "1e-05", "0.5", "1048576").
std::string num(double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (const unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

std::string points(const SizeFunction& f) {
    std::string out = "[";
    bool first = true;
    for (const auto& [x, y] : f.points()) {
        out += (first ? "[" : ", [") + num(x) + ", " + num(y) + "]";
        first = false;
    }
    return out + "]";
}

}  // namespace

ParamSet parse_params(const std::string& toml_text, const std::string& origin) {
    const Reader rd(origin);
    toml::table doc;
    try {
        doc = toml::parse(toml_text, origin);
    } catch (const toml::parse_error& e) {
        rd.fail(e.source(), "", "TOML syntax error: " + std::string(e.description()));
    }
    rd.only_keys(doc, "", {"version", "origin", "gamma", "level"});
    ParamSet p;
    if (const toml::node* v = doc.get("version")) {
        const auto* i = v->as_integer();
        if (i == nullptr || i->get() != 1) rd.fail(v->source(), "version", "unsupported version (expected 1)");
    }
    if (const toml::node* o = doc.get("origin")) p.origin = rd.string(*o, "origin");
    if (const toml::node* g = doc.get("gamma")) p.gamma = rd.number(*g, "gamma");
    if (const toml::node* lv = doc.get("level")) {
        const auto* arr = lv->as_array();
        if (arr == nullptr || !arr->is_array_of_tables())
            rd.fail(lv->source(), "level", "expected an array of tables ([[level]])");
        std::set<std::string> names;
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string path = "level[" + std::to_string(i) + "]";
            const toml::table& t = rd.table((*arr)[i], path);
            rd.only_keys(t, path, {"name", "plogp", "loggp", "hockney"});
            LevelParams l;
            const toml::node& name = rd.need(t, path, "name");
            l.level = rd.string(name, path + ".name");
            if (l.level.empty()) rd.fail(name.source(), path + ".name", "empty level name");
            if (!names.insert(l.level).second)
                rd.fail(name.source(), path + ".name", "duplicate level name \"" + l.level + "\"");
            if (const toml::node* n = t.get("plogp"))
                l.plogp = read_plogp(rd, rd.table(*n, path + ".plogp"), path + ".plogp");
            if (const toml::node* n = t.get("loggp"))
                l.loggp = read_loggp(rd, rd.table(*n, path + ".loggp"), path + ".loggp");
            if (const toml::node* n = t.get("hockney"))
                l.hockney = read_hockney(rd, rd.table(*n, path + ".hockney"), path + ".hockney");
            p.levels.push_back(std::move(l));
        }
    }
    return p;
}

ParamSet load_params(const std::string& path) { return parse_params(read_text_file(path, kMaxFileBytes), path); }

std::string to_toml(const ParamSet& p) {
    std::string out;
    out += "# gridcoll model parameters (see algorithms/model/README.md): seconds, bytes, seconds per byte.\n";
    out += "version = 1\n";
    if (!p.origin.empty()) out += "origin = " + quoted(p.origin) + "\n";
    out += "gamma = " + num(p.gamma) + "\n";
    for (const LevelParams& l : p.levels) {
        out += "\n[[level]]\nname = " + quoted(l.level) + "\n";
        if (l.plogp) {
            const PLogPParams& q = *l.plogp;
            out += "\n[level.plogp]\nL = " + num(q.L) + "\nos = " + points(q.os) + "\nor = " + points(q.or_) +
                   "\ng = " + points(q.g) + "\n";
        }
        if (l.loggp) {
            const LogGPParams& q = *l.loggp;
            out += "\n[level.loggp]\nL = " + num(q.L) + "\no = " + num(q.o) + "\ng = " + num(q.g) + "\nG = " + num(q.G) +
                   "\n";
        }
        if (l.hockney) {
            const HockneyParams& q = *l.hockney;
            out += "\n[level.hockney]\nalpha = " + points(q.alpha) + "\nbeta = " + points(q.beta) + "\n";
        }
    }
    return out;
}

void save_params(const ParamSet& p, const std::string& path) {
    const std::string text = to_toml(p);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write \"" + path + "\" (cannot open)");
    out << text;
    out.close();
    if (!out) throw Error("cannot write \"" + path + "\" (write error)");
}

}  // namespace gridcoll::model
