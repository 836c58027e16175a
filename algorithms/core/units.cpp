#include "gridcoll/units.hpp"

#include <cctype>
#include <string>

#include "gridcoll/collective.hpp"
#include "gridcoll/text.hpp"

namespace gridcoll {

std::uint64_t parse_bytes(std::string_view text) {
    std::size_t i = 0;
    std::uint64_t v = 0;
    const auto bad = [&] { return Error("'" + std::string(text) + "' is not a byte size (examples: 0, 8, 64K, 4MiB)"); };
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        const std::uint64_t d = static_cast<std::uint64_t>(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10) throw bad();
        v = v * 10 + d;
        ++i;
    }
    if (i == 0) throw bad();
    std::string unit(text.substr(i));
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    int shift = 0;
    if (unit.empty() || unit == "B") shift = 0;
    else if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
    else if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
    else if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
    else throw bad();
    if (shift && v > (UINT64_MAX >> shift)) throw bad();
    return v << shift;
}

std::vector<std::uint64_t> parse_byte_list(std::string_view text) {
    std::vector<std::uint64_t> out;
    for (const auto& item : split_list(text)) out.push_back(parse_bytes(item));
    return out;
}

}  // namespace gridcoll
