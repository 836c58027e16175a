// gridcoll-bench started as a child program (under smpirun, or mpirun across a testbed): its
// CSV output turned back into result rows (its command line: bench_options.hpp). What
// the SMPI and the emulated backends share.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gridcoll/algorithms/backend.hpp"

namespace gridcoll::launch {

// Starts the bench (through smpirun, mpirun, ...) with its standard output going to the line
// callback; returns the exit status. run_lines(argv, ...) is one.
using LineSink = std::function<void(const std::string&)>;
using BenchLauncher = std::function<int(const LineSink&)>;

// Runs `launch`: rows go to `sink` with `backend` as their backend column, any other line the
// programs print goes to stderr. Throws Error naming `what` when the launch fails (exit status
// not 0, and not a run whose only fault was a wrong result, which the rows say).
void run_launched_bench(const BenchLauncher& launch, const std::string& backend, const std::string& what,
                        const RowSink& sink);

}  // namespace gridcoll::launch
