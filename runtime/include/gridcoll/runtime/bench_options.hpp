// The options that say what to run — collective, methods, sizes, root, reduction, repetitions —
// declared once: gridcoll-bench parses them, every front end that runs a batch (gridcoll simulate,
// emulate bench) declares the same ones, and bench_arguments() writes them for a Batch, so that a
// launched gridcoll-bench runs exactly that batch. No MPI here.
#pragma once

#include "gridcoll/runtime/cli11.hpp"

#include <string>
#include <vector>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/batch_options.hpp"

namespace gridcoll::launch {

// Declares -c, -a, -b, -s, -k, -r, --warmup, --root, --type, --op, --no-verify, --rules on `app`,
// writing into `o`; `default_reps` is the -r default of this program.
void add_batch_options(CLI::App& app, BatchOptions& o, int default_reps);

// A note on standard error for each option given on `app` that the collective has no use for
// (--type and --op outside the reductions, --counts outside the irregular collectives, --root
// outside the rooted ones, --bytes on a barrier): the batch runs without it, and says so.
void note_inapplicable(const CLI::App& app, const BatchOptions& o);

// gridcoll-bench's options for `batch` (methods in their text form, sizes, root, type, op,
// repetitions, verification, rules); `rank_map` (may be empty) is passed as --rank-map.
std::vector<std::string> bench_arguments(const Batch& batch, const std::string& rank_map);

}  // namespace gridcoll::launch
