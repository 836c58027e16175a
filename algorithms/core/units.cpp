#include "gridcoll/algorithms/units.hpp"

#include <charconv>
#include <cmath>
#include <utility>
#include <string>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool same_unit(std::string_view a, std::string_view b, bool fold) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (fold ? lower(a[i]) != lower(b[i]) : a[i] != b[i]) return false;
    return true;
}

// Length of the number at the start of `s`: [sign] digits [. digits] [exponent] (sign and
// exponent only when allowed), at least one mantissa digit; 0 if there is none.
std::size_t number_length(std::string_view s, const QuantityRules& r) {
    std::size_t i = 0, digits = 0;
    const auto digit_at = [&](std::size_t k) { return k < s.size() && is_digit(s[k]); };
    if (r.sign_exponent && i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    while (digit_at(i)) ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (digit_at(i)) ++i, ++digits;
    }
    if (digits == 0) return 0;
    if (r.sign_exponent && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (digit_at(j)) {
            while (digit_at(j)) ++j;
            i = j;
        }
    }
    return i;
}

}  // namespace

double parse_quantity(std::string_view text, const QuantityRules& r) {
    const auto bad = [&](const std::string& why) {
        std::string msg = "bad " + std::string(r.kind) + " \"" + std::string(text) + "\": " + why + " (examples: " + r.examples;
        if (r.list_units) {
            std::string valid;
            for (const auto& u : r.units) valid += (valid.empty() ? "" : ", ") + std::string(u.name);
            msg += "; units: " + valid;
        }
        return Error(msg + ")");
    };
    const std::string_view s = r.trim ? trimmed(text) : text;
    const std::size_t n = number_length(s, r);
    if (n == 0) throw bad("expected a number followed by a unit");
    std::string_view number = s.substr(0, n);
    const std::string_view unit = r.trim ? trimmed(s.substr(n)) : s.substr(n);
    if (!r.decimals && number.find('.') != std::string_view::npos) throw bad("expected a whole number");
    if (number.front() == '+') number.remove_prefix(1);  // from_chars takes '-' but not '+'
    double v = 0;
    const auto res = std::from_chars(number.data(), number.data() + number.size(), v);
    if (res.ec != std::errc() || res.ptr != number.data() + number.size()) throw bad("number out of range");
    double scale = 0;
    if (unit.empty()) {
        if (r.bare_scale > 0) scale = r.bare_scale;
        else if (r.bare_zero && v == 0) scale = 1;
        else throw bad("a bare number needs a unit");
    } else {
        for (const auto& u : r.units)
            if (same_unit(u.name, unit, r.fold_case)) scale = u.scale;
        if (scale == 0) throw bad("unknown unit \"" + std::string(unit) + "\"");
    }
    const double out = v * scale;
    if (!std::isfinite(out)) throw bad("number out of range");
    return out;
}

namespace {

constexpr Unit kByteUnits[] = {{"B", 1},           {"K", 1024.0},         {"KB", 1024.0},        {"KiB", 1024.0},
                               {"M", 1048576.0},   {"MB", 1048576.0},     {"MiB", 1048576.0},    {"G", 1073741824.0},
                               {"GB", 1073741824.0}, {"GiB", 1073741824.0}};
constexpr QuantityRules kByteRules{.kind = "byte size",
                                   .examples = "0, 8, 64K, 4MiB",
                                   .units = kByteUnits,
                                   .fold_case = true,
                                   .decimals = false,
                                   .bare_scale = 1};

}  // namespace

std::uint64_t parse_bytes(std::string_view text) {
    const double v = parse_quantity(text, kByteRules);
    // Exact for whole numbers below 2^53; larger sizes are refused rather than rounded.
    if (!(v < 9007199254740992.0)) throw Error("bad byte size \"" + std::string(text) + "\": number out of range");
    return static_cast<std::uint64_t>(v);
}

std::vector<std::uint64_t> parse_byte_list(std::string_view text) {
    std::vector<std::uint64_t> out;
    for (const auto& item : split_list(text)) out.push_back(parse_bytes(item));
    return out;
}

std::string format_bytes(std::uint64_t bytes) {
    for (const auto& [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}})
        if (bytes >= (std::uint64_t{1} << shift) && bytes % (std::uint64_t{1} << shift) == 0)
            return std::to_string(bytes >> shift) + suffix;
    return std::to_string(bytes);
}

}  // namespace gridcoll
