#include "units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll::delayline {

namespace {

bool ends_with(std::string_view s, std::string_view tail, bool fold) {
    if (s.size() < tail.size()) return false;
    for (std::size_t i = 0; i < tail.size(); ++i) {
        char a = s[s.size() - tail.size() + i], b = tail[i];
        if (fold) a = static_cast<char>(std::tolower(static_cast<unsigned char>(a)));
        if (a != b) return false;
    }
    return true;
}

// tc's way of writing: spaces allowed around the number and unit, units in any case, plain
// decimals (no sign, no exponent, so "1e3" is not silently accepted).
constexpr QuantityRules tc_rules(const char* kind, const char* examples, std::span<const Unit> units, double bare = 0) {
    QuantityRules r{kind, examples, units};
    r.fold_case = true;
    r.trim = true;
    r.bare_scale = bare;
    r.bare_zero = true;
    return r;
}

constexpr Unit kDurationUnits[] = {{"s", 1e9},  {"sec", 1e9},  {"ms", 1e6},          {"msec", 1e6}, {"us", 1e3},
                                   {"usec", 1e3}, {"\xc2\xb5s", 1e3}, {"ns", 1},     {"nsec", 1}};
constexpr Unit kBitRateUnits[] = {{"bit", 1},   {"b/s", 1},    {"kbit", 1e3}, {"kb/s", 1e3},  {"mbit", 1e6},
                                  {"mb/s", 1e6}, {"gbit", 1e9}, {"gb/s", 1e9}, {"tbit", 1e12}, {"tb/s", 1e12}};
constexpr Unit kByteRateUnits[] = {{"b/s", 8}, {"kb/s", 8e3}, {"mb/s", 8e6}, {"gb/s", 8e9}, {"tb/s", 8e12}};
constexpr Unit kByteUnits[] = {{"b", 1},           {"k", 1024.0},       {"kb", 1024.0},       {"kib", 1024.0},
                               {"m", 1048576.0},   {"mb", 1048576.0},   {"mib", 1048576.0},   {"g", 1073741824.0},
                               {"gb", 1073741824.0}, {"gib", 1073741824.0}};

// Rounds to a whole number that fits T, or throws.
template <typename T>
T whole(double v, std::string_view text, const char* kind) {
    const double r = std::round(v);
    if (!(r >= 0) || r >= static_cast<double>(std::numeric_limits<T>::max()))
        throw ParseError("bad " + std::string(kind) + " \"" + std::string(text) + "\": out of range");
    return static_cast<T>(r);
}

std::string trim_number(double v) { return format_number(v, 6); }

}  // namespace

std::int64_t parse_duration_ns(std::string_view text) {
    constexpr auto r = tc_rules("duration", "10ms, 1.5ms, 250us, 100ns, 2s, 0", kDurationUnits);
    return whole<std::int64_t>(parse_quantity(text, r), text, r.kind);
}

std::uint64_t parse_rate_bps(std::string_view text) {
    const std::string_view t = trim(text);
    if (ends_with(t, "bps", true))
        throw ParseError("'" + std::string(text) +
                         "' is ambiguous (tc reads 'mbps' as megabytes per second): write 100mbit for bits per "
                         "second or 12.5MB/s for bytes per second");
    // Bytes per second: the unit ends in "B/s" with an upper-case B.
    const bool bytes = ends_with(t, "B/s", false);
    constexpr auto bits_rules = tc_rules("rate", "1Gbit, 100mbit, 2.5gbit, 64kbit, 125MB/s", kBitRateUnits, 1);
    constexpr auto bytes_rules = tc_rules("rate", "1Gbit, 100mbit, 2.5gbit, 64kbit, 125MB/s", kByteRateUnits);
    return whole<std::uint64_t>(parse_quantity(text, bytes ? bytes_rules : bits_rules), text, "rate");
}

std::uint64_t parse_bytes(std::string_view text) {
    constexpr auto r = tc_rules("byte size", "1500, 64K, 4MiB, 1MB", kByteUnits, 1);
    const double v = parse_quantity(text, r);
    if (v != std::floor(v)) throw ParseError("bad byte size \"" + std::string(text) + "\": not a whole number of bytes");
    return whole<std::uint64_t>(v, text, r.kind);
}

QueueLimit parse_queue_limit(std::string_view text) {
    const auto bad = [&] {
        return ParseError("'" + std::string(text) + "' is not a queue limit (examples: 1000p or 1000 packets, 256K or 4MiB bytes)");
    };
    static constexpr Unit kPacketUnits[] = {{"p", 1}, {"pkt", 1}, {"pkts", 1}, {"packets", 1}};
    constexpr auto packets = tc_rules("queue limit", "1000p", kPacketUnits, 1);
    try {
        const double v = parse_quantity(text, packets);
        if (v < 1 || v != std::floor(v)) throw bad();
        return QueueLimit{QueueLimit::Unit::packets, whole<std::uint64_t>(v, text, "queue limit")};
    } catch (const ParseError&) {
    }
    try {
        QueueLimit q{QueueLimit::Unit::bytes, parse_bytes(text)};
        if (q.value == 0) throw bad();
        return q;
    } catch (const ParseError&) {
        throw bad();
    }
}

double parse_probability(std::string_view text) {
    static constexpr Unit kPercent[] = {{"%", 0.01}};
    const double v = parse_quantity(text, tc_rules("probability", "5%, 0.05, 0", kPercent, 1));
    if (v < 0 || v > 1) throw ParseError("bad probability \"" + std::string(text) + "\": not in [0, 1] (examples: 5%, 0.05, 0)");
    return v;
}

std::string format_duration(std::int64_t ns) {
    if (ns == 0) return "0";
    const double a = static_cast<double>(ns < 0 ? -ns : ns);
    const double v = static_cast<double>(ns);
    if (a >= 1e9) return trim_number(v / 1e9) + "s";
    if (a >= 1e6) return trim_number(v / 1e6) + "ms";
    if (a >= 1e3) return trim_number(v / 1e3) + "us";
    return std::to_string(ns) + "ns";
}

std::string format_rate(std::uint64_t bps) {
    if (bps == 0) return "unlimited";
    const double v = static_cast<double>(bps);
    if (v >= 1e12) return trim_number(v / 1e12) + "Tbit";
    if (v >= 1e9) return trim_number(v / 1e9) + "Gbit";
    if (v >= 1e6) return trim_number(v / 1e6) + "Mbit";
    if (v >= 1e3) return trim_number(v / 1e3) + "kbit";
    return std::to_string(bps) + "bit";
}

std::string format_bytes(std::uint64_t bytes) {
    const double v = static_cast<double>(bytes);
    if (bytes >= (1ULL << 30) && bytes % (1ULL << 20) == 0) return trim_number(v / (1ULL << 30)) + "GiB";
    if (bytes >= (1ULL << 20) && bytes % (1ULL << 10) == 0) return trim_number(v / (1ULL << 20)) + "MiB";
    if (bytes >= (1ULL << 10) && bytes % 64 == 0) return trim_number(v / (1ULL << 10)) + "KiB";
    return std::to_string(bytes) + "B";
}

std::string format_queue_limit(const QueueLimit& limit) {
    if (limit.unit == QueueLimit::Unit::packets) return std::to_string(limit.value) + " packets";
    return format_bytes(limit.value);
}

}  // namespace gridcoll::delayline
