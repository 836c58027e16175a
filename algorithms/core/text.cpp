#include "gridcoll/algorithms/text.hpp"

#include <cstdio>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll {

std::string read_text_file(const std::string& path, std::uintmax_t max_bytes) {
    const auto bad = [&](const std::string& why) { return Error("cannot read \"" + path + "\" (" + why + ")"); };
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) throw bad("no such file");
    if (!std::filesystem::is_regular_file(status)) throw bad("not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw bad(ec.message());
    if (size > max_bytes) throw bad("larger than " + std::to_string(max_bytes >> 20) + " MiB");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw bad("cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw bad("read error");
    std::string s = text.str();
    if (s.starts_with("\xEF\xBB\xBF")) s.erase(0, 3);  // a UTF-8 byte-order mark, as some editors write
    return s;
}

std::string format_number(double v, int digits) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return lines;
}

std::vector<std::string> split_list(std::string_view text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = text.find(sep, start);
        out.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

}  // namespace gridcoll
