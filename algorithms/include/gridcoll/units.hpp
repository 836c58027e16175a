// Parsing of byte sizes as users type them: 8, 1K, 64KiB, 4M, 1MB (powers of two).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gridcoll {

// Throws Error naming the text when it is not a size.
std::uint64_t parse_bytes(std::string_view text);
// Comma-separated list of sizes.
std::vector<std::uint64_t> parse_byte_list(std::string_view text);

}  // namespace gridcoll
