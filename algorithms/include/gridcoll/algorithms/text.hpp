// Small text helpers shared by every input path: reading an input file whole (with a size
// limit, so a wrong path or a huge file is an error rather than an exhausted memory),
// splitting it into lines, and splitting comma-separated command-line lists.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gridcoll {

// The whole file, less a leading UTF-8 byte-order mark; throws Error 'cannot read "path" (why)'
// when it is missing, not a regular file, larger than `max_bytes`, or unreadable.
std::string read_text_file(const std::string& path, std::uintmax_t max_bytes = 64u << 20);

// The lines of a text without their '\n' (line k + 1 is element k); a final line without '\n'
// counts, an empty text has none.
std::vector<std::string_view> split_lines(std::string_view text);

// `v` in printf's %.<digits>g: the shortest text that reads back to `v` at that precision.
std::string format_number(double v, int digits = 9);

// `s` without leading and trailing blanks (spaces, tabs, '\r', '\n').
std::string_view trim(std::string_view s);

// "a,b,c" -> {"a", "b", "c"}; an empty item stays an (empty) item.
std::vector<std::string> split_list(std::string_view text, char sep = ',');

}  // namespace gridcoll
