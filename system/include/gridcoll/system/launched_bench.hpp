// gridcoll-bench started as a child program (under smpirun, or mpirun across a testbed): a
// Batch turned into its command line, and its CSV output turned back into result rows. What
// the SMPI and the emulated backends share.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gridcoll/backend.hpp"

namespace gridcoll::sys {

// gridcoll-bench's options for `batch` (methods in their text form, sizes, root, type, op,
// repetitions, verification); `rank_map` (may be empty) is passed as --rank-map.
std::vector<std::string> bench_arguments(const Batch& batch, const std::string& rank_map);

// Starts the bench (through smpirun, mpirun, ...) with its standard output going to the line
// callback; returns the exit status. run_lines(argv, ...) is one.
using LineSink = std::function<void(const std::string&)>;
using BenchLauncher = std::function<int(const LineSink&)>;

// Runs `launch`: rows go to `sink` with `backend` as their backend column, any other line the
// programs print goes to stderr. Throws Error naming `what` when the launch fails (exit status
// not 0, and not a run whose only fault was a wrong result, which the rows say).
void run_launched_bench(const BenchLauncher& launch, const std::string& backend, const std::string& what,
                        const RowSink& sink);

}  // namespace gridcoll::sys
