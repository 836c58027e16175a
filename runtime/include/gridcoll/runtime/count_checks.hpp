// Checks of whole-number options whose message names what is allowed and what was given
// ("must be a whole number of at least 1, not '0'"), in place of CLI11's PositiveNumber /
// NonNegativeNumber, which print a range up to the largest double. The options they check are
// ints: a value past INT_MAX is refused here by name, not by CLI11's "Could not convert".
#pragma once

#include <CLI/CLI.hpp>
#include <climits>
#include <stdexcept>
#include <string>

namespace gridcoll::launch {

inline CLI::Validator at_least(long long least) {
    return CLI::Validator(
        [least](std::string& text) -> std::string {
            std::size_t used = 0;
            long long value = 0;
            try {
                value = std::stoll(text, &used, 10);
            } catch (const std::out_of_range&) {  // digits past a long long: too large (or small)
                used = text.find_first_not_of("+-0123456789") == std::string::npos ? text.size() : 0;
                value = text.front() == '-' ? LLONG_MIN : LLONG_MAX;
            } catch (const std::exception&) {
                used = 0;
            }
            if (text.empty() || used != text.size() || text.front() == ' ' || value < least)
                return "must be a whole number of at least " + std::to_string(least) + ", not '" + text + "'";
            if (value > INT_MAX)
                return "must be a whole number from " + std::to_string(least) + " to " + std::to_string(INT_MAX) +
                       ", not '" + text + "'";
            return {};
        },
        least == 1 ? "POSITIVE" : least == 0 ? "NONNEGATIVE" : ">=" + std::to_string(least));
}
inline const CLI::Validator kPositive = at_least(1);
inline const CLI::Validator kNonNegative = at_least(0);

}  // namespace gridcoll::launch
