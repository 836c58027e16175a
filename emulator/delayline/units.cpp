#include "units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace gridcoll::delayline {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Splits "12.5ms" into the number 12.5 and the unit "ms". The number is a plain decimal
// (digits, at most one point, no sign, no exponent) so that "1e3" is not silently accepted.
bool split_number(std::string_view text, double& value, std::string& unit, bool& integral) {
    text = trim(text);
    std::size_t i = 0;
    bool digits = false, point = false;
    while (i < text.size()) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits = true;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            break;
        }
        ++i;
    }
    if (!digits) return false;
    const std::string number(text.substr(0, i));
    char* end = nullptr;
    value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value)) return false;
    unit = lower(trim(text.substr(i)));
    integral = !point;
    return true;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// Multiplies and checks that the result is a whole number that fits an int64/uint64.
template <typename T>
bool scale(double value, double factor, T& out) {
    const double v = std::round(value * factor);
    if (!(v >= 0) || v >= static_cast<double>(std::numeric_limits<T>::max())) return false;
    out = static_cast<T>(v);
    return true;
}

std::string trim_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

std::int64_t parse_duration_ns(std::string_view text) {
    const auto bad = [&] {
        return ParseError(quoted(text) + " is not a duration (examples: 10ms, 1.5ms, 250us, 100ns, 2s, 0)");
    };
    double v = 0;
    std::string unit;
    bool integral = false;
    if (!split_number(text, v, unit, integral)) throw bad();
    double factor = 0;
    if (unit == "s" || unit == "sec")
        factor = 1e9;
    else if (unit == "ms" || unit == "msec")
        factor = 1e6;
    else if (unit == "us" || unit == "usec" || unit == "\xc2\xb5s")
        factor = 1e3;
    else if (unit == "ns" || unit == "nsec")
        factor = 1;
    else if (unit.empty() && v == 0)
        factor = 1;
    else
        throw bad();
    std::int64_t ns = 0;
    if (!scale(v, factor, ns)) throw bad();
    return ns;
}

std::uint64_t parse_rate_bps(std::string_view text) {
    const auto bad = [&] {
        return ParseError(quoted(text) + " is not a rate (examples: 1Gbit, 100mbit, 2.5gbit, 64kbit, 125MB/s)");
    };
    double v = 0;
    std::string unit;
    bool integral = false;
    if (!split_number(text, v, unit, integral)) throw bad();
    double factor = 0;
    // Bytes per second: the unit ends in "b/s" with an upper-case B in the original text.
    const std::string_view original = trim(text);
    const bool bytes_per_second = original.size() >= 3 && original.substr(original.size() - 3) == "B/s";
    if (unit == "bps" || unit == "kbps" || unit == "mbps" || unit == "gbps" || unit == "tbps") {
        throw ParseError(quoted(text) +
                         " is ambiguous (tc reads 'mbps' as megabytes per second): write 100mbit for bits per "
                         "second or 12.5MB/s for bytes per second");
    }
    if (unit.empty() || unit == "bit" || unit == "b/s")
        factor = 1;
    else if (unit == "kbit" || unit == "kb/s")
        factor = 1e3;
    else if (unit == "mbit" || unit == "mb/s")
        factor = 1e6;
    else if (unit == "gbit" || unit == "gb/s")
        factor = 1e9;
    else if (unit == "tbit" || unit == "tb/s")
        factor = 1e12;
    else
        throw bad();
    if (bytes_per_second) factor *= 8;
    std::uint64_t bps = 0;
    if (!scale(v, factor, bps)) throw bad();
    return bps;
}

std::uint64_t parse_bytes(std::string_view text) {
    const auto bad = [&] { return ParseError(quoted(text) + " is not a byte size (examples: 1500, 64K, 4MiB, 1MB)"); };
    double v = 0;
    std::string unit;
    bool integral = false;
    if (!split_number(text, v, unit, integral)) throw bad();
    double factor = 0;
    if (unit.empty() || unit == "b")
        factor = 1;
    else if (unit == "k" || unit == "kb" || unit == "kib")
        factor = 1024.0;
    else if (unit == "m" || unit == "mb" || unit == "mib")
        factor = 1024.0 * 1024;
    else if (unit == "g" || unit == "gb" || unit == "gib")
        factor = 1024.0 * 1024 * 1024;
    else
        throw bad();
    std::uint64_t bytes = 0;
    if (!scale(v, factor, bytes)) throw bad();
    if (factor == 1 && !integral) throw bad();
    return bytes;
}

QueueLimit parse_queue_limit(std::string_view text) {
    const auto bad = [&] {
        return ParseError(quoted(text) + " is not a queue limit (examples: 1000p or 1000 packets, 256K or 4MiB bytes)");
    };
    double v = 0;
    std::string unit;
    bool integral = false;
    if (!split_number(text, v, unit, integral)) throw bad();
    if (unit.empty() || unit == "p" || unit == "pkt" || unit == "pkts" || unit == "packets") {
        if (!integral || v < 1) throw bad();
        QueueLimit q{QueueLimit::Unit::packets, 0};
        if (!scale(v, 1.0, q.value)) throw bad();
        return q;
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
    const auto bad = [&] { return ParseError(quoted(text) + " is not a probability (examples: 5%, 0.05, 0)"); };
    double v = 0;
    std::string unit;
    bool integral = false;
    if (!split_number(text, v, unit, integral)) throw bad();
    if (unit == "%")
        v /= 100;
    else if (!unit.empty())
        throw bad();
    if (v < 0 || v > 1) throw bad();
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
