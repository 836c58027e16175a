// Subcommands of the gridcoll CLI. Each add_* registers its options on `app` and returns the
// function that runs it (called after parsing; returns the process exit status).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace gridcoll::cli {

using Runner = std::function<int()>;

// Option checks whose message names what is allowed ("must be at least 1, not '0'"), in place of
// CLI11's PositiveNumber / NonNegativeNumber, which print a range up to the largest double.
inline CLI::Validator at_least(long long least) {
    return CLI::Validator(
        [least](std::string& text) -> std::string {
            std::size_t used = 0;
            double value = 0;
            try {
                value = std::stod(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != text.size() || text.empty() || !(value >= static_cast<double>(least)))
                return "must be a number of at least " + std::to_string(least) + ", not '" + text + "'";
            return {};
        },
        least == 1 ? "POSITIVE" : least == 0 ? "NONNEGATIVE" : ">=" + std::to_string(least));
}
inline const CLI::Validator kPositive = at_least(1);
inline const CLI::Validator kNonNegative = at_least(0);

Runner add_algorithms(CLI::App& app);
Runner add_check(CLI::App& app);
Runner add_decide(CLI::App& app);
Runner add_discover(CLI::App& app);
Runner add_emulate(CLI::App& app);  // only with GRIDCOLL_HAVE_EMULATOR
Runner add_optimize(CLI::App& app);
Runner add_params(CLI::App& app);
Runner add_platform(CLI::App& app);
Runner add_predict(CLI::App& app);
Runner add_schedule(CLI::App& app);
Runner add_simulate(CLI::App& app);
Runner add_smpirun(CLI::App& app);
Runner add_validate(CLI::App& app);

}  // namespace gridcoll::cli
