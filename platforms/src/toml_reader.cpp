// Typed, checked reading of one TOML table of a platform description (see toml_reader.hpp).
#include "toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::platform::detail {

SourceLoc loc_of(const std::string& origin, const toml::source_region& where) {
    SourceLoc l;
    l.file = origin;
    l.line = std::max(1, static_cast<int>(std::min<toml::source_index>(where.begin.line, 1u << 30)));
    l.column = std::max(1, static_cast<int>(std::min<toml::source_index>(where.begin.column, 1u << 30)));
    return l;
}

void fail(const SourceLoc& at, const std::string& key, const std::string& what) {
    throw Error(at.str() + ": " + (key.empty() ? "" : key + ": ") + what);
}

std::string type_name(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::table:
            return "a table";
        case toml::node_type::array:
            return "an array";
        case toml::node_type::string:
            return "a string";
        case toml::node_type::integer:
            return "an integer";
        case toml::node_type::floating_point:
            return "a float";
        case toml::node_type::boolean:
            return "a boolean";
        case toml::node_type::date:
            return "a date";
        case toml::node_type::time:
            return "a time of day";
        case toml::node_type::date_time:
            return "a date-time";
        default:
            return "nothing";
    }
}

TableReader::TableReader(const toml::table& table, std::string path, const std::string& origin)
    : table_(table), path_(std::move(path)), origin_(origin) {}

std::string TableReader::path_of(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void TableReader::only_keys(const std::vector<std::string_view>& allowed) const {
    for (const auto& [key, value] : table_) {
        if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        const auto& where = key.source().begin.line ? key.source() : value.source();
        fail(loc_of(origin_, where), path_of(key.str()), "unknown key (allowed here: " + list + ")");
    }
}

const toml::node* TableReader::get(std::string_view key) const { return table_.get(key); }

const toml::node& TableReader::need(std::string_view key) const {
    const toml::node* n = get(key);
    if (!n) fail(loc(), path_of(key), "missing required key");
    return *n;
}

void TableReader::fail_at(std::string_view key, const std::string& what) const {
    const toml::node* n = get(key);
    fail(n ? loc(*n) : loc(), path_of(key), what);
}

void TableReader::fail_here(const std::string& what) const { fail(loc(), path_, what); }

const toml::node* TableReader::typed(std::string_view key, toml::node_type type, const char* expected) const {
    const toml::node* n = get(key);
    if (n && n->type() != type)
        fail(loc(*n), path_of(key), std::string("expected ") + expected + ", got " + type_name(*n));
    return n;
}

std::optional<std::string> TableReader::string(std::string_view key) const {
    const toml::node* n = typed(key, toml::node_type::string, "a string");
    if (!n) return std::nullopt;
    return n->as_string()->get();
}

std::optional<std::int64_t> TableReader::integer(std::string_view key, std::int64_t min, std::int64_t max) const {
    const toml::node* n = typed(key, toml::node_type::integer, "an integer");
    if (!n) return std::nullopt;
    const std::int64_t v = n->as_integer()->get();
    if (v < min) fail(loc(*n), path_of(key), "must be at least " + std::to_string(min) + ", got " + std::to_string(v));
    if (v > max) fail(loc(*n), path_of(key), "must be at most " + std::to_string(max) + ", got " + std::to_string(v));
    return v;
}

std::optional<bool> TableReader::boolean(std::string_view key) const {
    const toml::node* n = typed(key, toml::node_type::boolean, "a boolean (true or false)");
    if (!n) return std::nullopt;
    return n->as_boolean()->get();
}

std::optional<double> TableReader::number(std::string_view key) const {
    const toml::node* n = get(key);
    if (!n) return std::nullopt;
    if (n->is_integer()) return static_cast<double>(n->as_integer()->get());
    if (n->is_floating_point()) return n->as_floating_point()->get();
    fail(loc(*n), path_of(key), "expected a number, got " + type_name(*n));
}

std::optional<double> TableReader::with_unit(std::string_view key, double (*parse)(const std::string&),
                                             const char* example) const {
    const toml::node* n = get(key);
    if (!n) return std::nullopt;
    if (!n->is_string())
        fail(loc(*n), path_of(key),
             std::string("expected a string with a unit like ") + example + ", got " + type_name(*n));
    try {
        return parse(n->as_string()->get());
    } catch (const Error& e) {
        fail(loc(*n), path_of(key), e.what());
    }
}

// FORMAT.md "Units": times up to an hour either way, bandwidths (above zero) from 1 B/s to 1 PB/s,
// so that every figure derived from them (a testbed's delays in microseconds, its rates in bits)
// stays finite and non-zero. Signs and zeros are the callers' to judge.
std::optional<double> TableReader::time(std::string_view key) const {
    const auto t = with_unit(key, parse_time, "\"20us\"");
    if (t && std::abs(*t) > 3600) fail(loc(*get(key)), path_of(key), "time \"" + *string(key) + "\" is beyond an hour (3600 s)");
    return t;
}
std::optional<double> TableReader::bandwidth(std::string_view key) const {
    const auto b = with_unit(key, parse_bandwidth, "\"50MB/s\"");
    if (b && *b > 0 && (*b < 1 || *b > 1e15))
        fail(loc(*get(key)), path_of(key), "bandwidth \"" + *string(key) + "\" is outside 1 B/s to 1 PB/s");
    return b;
}
std::optional<double> TableReader::speed(std::string_view key) const { return with_unit(key, parse_speed, "\"1Gf\""); }

const toml::table* TableReader::table(std::string_view key) const {
    const toml::node* n = typed(key, toml::node_type::table, "a table");
    return n ? n->as_table() : nullptr;
}

const toml::array* TableReader::array(std::string_view key) const {
    const toml::node* n = typed(key, toml::node_type::array, "an array");
    return n ? n->as_array() : nullptr;
}

LinkSpec read_link(const TableReader& r, const std::vector<std::string_view>& extra) {
    std::vector<std::string_view> allowed{"latency", "bandwidth", "loss", "jitter"};
    allowed.insert(allowed.end(), extra.begin(), extra.end());
    r.only_keys(allowed);
    LinkSpec l;
    l.loc = r.loc();
    r.need("latency");
    r.need("bandwidth");
    l.latency_s = *r.time("latency");
    if (l.latency_s < 0) r.fail_at("latency", "negative latency \"" + *r.string("latency") + "\"");
    l.bandwidth_Bps = *r.bandwidth("bandwidth");
    if (l.bandwidth_Bps < 0) r.fail_at("bandwidth", "negative bandwidth \"" + *r.string("bandwidth") + "\"");
    if (l.bandwidth_Bps == 0) r.fail_at("bandwidth", "zero bandwidth \"" + *r.string("bandwidth") + "\"");
    if (const auto loss = r.number("loss")) {
        if (!(*loss >= 0 && *loss < 1)) {
            std::ostringstream v;
            v << *loss;
            r.fail_at("loss", "loss " + v.str() + " is not a probability in [0, 1)");
        }
        l.loss = *loss;
    }
    if (const auto jitter = r.time("jitter")) {
        if (*jitter < 0) r.fail_at("jitter", "negative jitter \"" + *r.string("jitter") + "\"");
        l.jitter_s = *jitter;
    }
    return l;
}

}  // namespace gridcoll::platform::detail
