// Quantities as people type them — a number and a unit: "64K", "1.5ms", "100Mbps", "5%". One
// parser (parse_quantity) under every front end: the command lines (byte sizes), platform
// descriptions (times, bandwidths, core speeds; platforms/FORMAT.md "Units") and the delay line
// (tc-style durations and rates). Each caller gives its unit table and number rules; the
// splitting, the unit look-up, the range checks and the error message are written once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gridcoll {

struct Unit {
    std::string_view name;
    double scale;  // value of 1 <name> in the base unit
};

// How a kind of quantity is written.
struct QuantityRules {
    const char* kind;      // in messages: "time", "byte size", ...
    const char* examples;  // in messages: "\"20us\", \"1.5ms\""
    std::span<const Unit> units;
    bool fold_case = false;        // units compared ignoring case
    bool sign_exponent = false;    // the number may carry a sign and an exponent (1e3, -2)
    bool decimals = true;          // the number may have a fractional part
    bool trim = false;             // white space around the text and before the unit is allowed
    // A number without a unit: refused (bare_scale = 0), or taken in this unit (e.g. bytes).
    // A bare 0 is accepted whenever `bare_zero` is set.
    double bare_scale = 0;
    bool bare_zero = false;
    bool list_units = false;       // list the valid units in error messages
};

// The value of `text` in the base unit. Throws Error 'bad <kind> "<text>": <why> (examples: ...)'
// for a missing number, an unknown unit, a refused bare number, or a value out of range.
double parse_quantity(std::string_view text, const QuantityRules& rules);

// Byte sizes, powers of two, case ignored: 8, 1K, 64KiB, 4M, 1MB, 2G. Whole numbers only.
std::uint64_t parse_bytes(std::string_view text);
// Comma-separated list of sizes.
std::vector<std::uint64_t> parse_byte_list(std::string_view text);

// The shortest text parse_bytes reads back to the same size: "64K", "4M", "1000".
std::string format_bytes(std::uint64_t bytes);

}  // namespace gridcoll
