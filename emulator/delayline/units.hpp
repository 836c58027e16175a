// Parsing and printing of the quantities a delay line is configured with: durations ("10ms"),
// rates ("1Gbit"), byte sizes ("64KiB"), queue limits ("1000p", "256K") and probabilities ("5%").
// Every parser throws ParseError naming the offending text and giving examples. The parsing
// is gridcoll::parse_quantity (gridcoll/units.hpp); this file holds tc's unit tables.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::delayline {

using ParseError = gridcoll::Error;

// "10ms", "1.5ms", "250us", "100ns", "2s", "0". A unit is required unless the value is 0.
std::int64_t parse_duration_ns(std::string_view text);

// Bits per second, SI prefixes (k = 1000) as in tc: "1Gbit", "100mbit", "2.5gbit", "64kbit",
// "1000000" (bare = bit/s); bytes per second with "B/s": "125MB/s". "mbps"-style units are
// rejected because tc reads them as bytes per second and most people as bits.
std::uint64_t parse_rate_bps(std::string_view text);

// Bytes with power-of-two prefixes, same meaning as gridcoll::parse_bytes: "1500", "64K", "4MiB", "1MB".
std::uint64_t parse_bytes(std::string_view text);

// A drop-tail queue limit: in packets ("1000p", "1000pkt", "1000packets", bare "1000") or in
// bytes (any byte unit: "256K", "1500B", "4MiB").
struct QueueLimit {
    enum class Unit { packets, bytes };
    Unit unit = Unit::packets;
    std::uint64_t value = 1000;
    friend bool operator==(const QueueLimit&, const QueueLimit&) = default;
};
QueueLimit parse_queue_limit(std::string_view text);

// "5%", "0.05", "0" -> probability in [0, 1].
double parse_probability(std::string_view text);

std::string format_duration(std::int64_t ns);   // "10ms", "1.5ms", "250us"
std::string format_rate(std::uint64_t bps);     // "1Gbit", "100Mbit"
std::string format_bytes(std::uint64_t bytes);  // "1500B", "64KiB", "16MiB"
std::string format_queue_limit(const QueueLimit& limit);

}  // namespace gridcoll::delayline
