// The options that say what to run (gridcoll/batch_options.hpp), declared once for every
// subcommand that runs a backend (simulate, emulate bench).
#pragma once

#include <CLI/CLI.hpp>

#include "gridcoll/batch_options.hpp"

namespace gridcoll::cli {

void add_batch_options(CLI::App& app, BatchOptions& o, int default_reps);

}  // namespace gridcoll::cli
