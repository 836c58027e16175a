// Subcommands of the gridcoll CLI. Each add_* registers its options on `app` and returns the
// function that runs it (called after parsing; returns the process exit status).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "gridcoll/runtime/count_checks.hpp"

namespace gridcoll::cli {

using Runner = std::function<int()>;

using launch::kNonNegative;
using launch::kPositive;

Runner add_algorithms(CLI::App& app);
Runner add_check(CLI::App& app);
Runner add_decide(CLI::App& app);
Runner add_discover(CLI::App& app);
// Only with GRIDCOLL_HAVE_EMULATOR. `after_separator`: how many words the command line has after
// its `--` (CLI11 does not say whether a positional came before or after it).
Runner add_emulate(CLI::App& app, std::size_t after_separator);
Runner add_optimize(CLI::App& app);
Runner add_params(CLI::App& app);
Runner add_platform(CLI::App& app);
Runner add_predict(CLI::App& app);
Runner add_schedule(CLI::App& app);
Runner add_simulate(CLI::App& app);
Runner add_smpirun(CLI::App& app);
Runner add_validate(CLI::App& app);

}  // namespace gridcoll::cli
