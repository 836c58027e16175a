// Units of platform descriptions (FORMAT.md "Units"): times, bandwidths and core speeds are
// strings holding a number and a unit with nothing in between or around ("20us", "1.5ms",
// "1MB/s", "100Mbps", "1Gf"). Units are case-sensitive: "b" is a bit, "B" a byte.
#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gridcoll/collective.hpp"
#include "gridcoll/platform.hpp"

namespace gridcoll::platform {

namespace {

using UnitTable = std::vector<std::pair<std::string_view, double>>;

const UnitTable kTimeUnits = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};

const UnitTable kBandwidthUnits = {
    {"B/s", 1},         {"kB/s", 1e3},           {"MB/s", 1e6},     {"GB/s", 1e9},     {"KiB/s", 1024},
    {"MiB/s", 1048576}, {"GiB/s", 1073741824.0}, {"bps", 1 / 8.0},  {"kbps", 1e3 / 8}, {"Mbps", 1e6 / 8},
    {"Gbps", 1e9 / 8},  {"b/s", 1 / 8.0},        {"kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8},
};

const UnitTable kSpeedUnits = {{"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}};

// Length of the number at the start of `s`: [+-] digits [. digits] [(e|E) [+-] digits], at least
// one mantissa digit; 0 if there is none.
std::size_t number_length(std::string_view s) {
    std::size_t i = 0, digits = 0;
    const auto isdigit = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    while (isdigit(i)) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (isdigit(i)) ++i, ++digits;
    }
    if (digits == 0) return 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (isdigit(j)) {
            while (isdigit(j)) ++j;
            i = j;
        }
    }
    return i;
}

double parse_with(const std::string& text, const UnitTable& units, const char* kind, const char* examples) {
    const auto bad = [&](const std::string& why) {
        std::string valid;
        for (const auto& u : units) valid += (valid.empty() ? "" : ", ") + std::string(u.first);
        return Error("bad " + std::string(kind) + " \"" + text + "\": " + why + " (examples: " + examples +
                     "; units: " + valid + ")");
    };
    const std::string_view s(text);
    const std::size_t n = number_length(s);
    if (n == 0) throw bad("expected a number followed by a unit");
    const std::string_view unit = s.substr(n);
    if (unit.empty()) throw bad("a bare number needs a unit");
    double scale = 0;
    for (const auto& u : units)
        if (u.first == unit) scale = u.second;
    if (scale == 0) throw bad("unknown unit \"" + std::string(unit) + "\"");
    std::string_view digits = s.substr(0, n);
    if (digits.front() == '+') digits.remove_prefix(1);  // from_chars takes '-' but not '+'
    double v = 0;
    const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (res.ec != std::errc() || res.ptr != digits.data() + digits.size()) throw bad("number out of range");
    const double out = v * scale;
    if (!std::isfinite(out)) throw bad("number out of range");
    return out;
}

}  // namespace

double parse_time(const std::string& text) { return parse_with(text, kTimeUnits, "time", "\"20us\", \"1.5ms\""); }

double parse_bandwidth(const std::string& text) {
    return parse_with(text, kBandwidthUnits, "bandwidth", "\"50MB/s\", \"100Mbps\"");
}

double parse_speed(const std::string& text) { return parse_with(text, kSpeedUnits, "speed", "\"1Gf\", \"2.5Gf\""); }

}  // namespace gridcoll::platform
