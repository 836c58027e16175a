// Units of platform descriptions (FORMAT.md "Units"): times, bandwidths and core speeds are
// strings holding a number and a unit with nothing in between or around ("20us", "1.5ms",
// "1MB/s", "100Mbps", "1Gf"). Units are case-sensitive: "b" is a bit, "B" a byte. The parsing
// itself is gridcoll::parse_quantity; this file holds the format's unit tables.
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll::platform {

namespace {

constexpr Unit kTimeUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};

constexpr Unit kBandwidthUnits[] = {
    {"B/s", 1},         {"kB/s", 1e3},           {"MB/s", 1e6},     {"GB/s", 1e9},     {"KiB/s", 1024},
    {"MiB/s", 1048576}, {"GiB/s", 1073741824.0}, {"bps", 1 / 8.0},  {"kbps", 1e3 / 8}, {"Mbps", 1e6 / 8},
    {"Gbps", 1e9 / 8},  {"b/s", 1 / 8.0},        {"kb/s", 1e3 / 8}, {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8},
};

constexpr Unit kSpeedUnits[] = {{"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}};

// Case-sensitive units, signed numbers with exponents (the loader checks ranges), no spaces,
// no bare numbers; errors list the valid units.
constexpr QuantityRules rules(const char* kind, const char* examples, std::span<const Unit> units) {
    QuantityRules r{kind, examples, units};
    r.sign_exponent = true;
    r.list_units = true;
    return r;
}

}  // namespace

double parse_time(const std::string& text) {
    return parse_quantity(text, rules("time", "\"20us\", \"1.5ms\"", kTimeUnits));
}

double parse_bandwidth(const std::string& text) {
    return parse_quantity(text, rules("bandwidth", "\"50MB/s\", \"100Mbps\"", kBandwidthUnits));
}

double parse_speed(const std::string& text) {
    return parse_quantity(text, rules("speed", "\"1Gf\", \"2.5Gf\"", kSpeedUnits));
}

}  // namespace gridcoll::platform
