// The frame of gridcoll's MPI programs (gridcoll-bench, gridcoll-plogp; Open MPI and SMPI
// builds of each): MPI_Init, the command line, the program's body, one error message (from
// rank 0, "<program>: error: ..."), MPI_Finalize.
#pragma once

#include <mpi.h>

#include "gridcoll/runtime/cli11.hpp"
#include <functional>
#include <string>

namespace gridcoll {

#ifdef GRIDCOLL_SMPI
inline constexpr const char* kMpiFlavour = "smpi";
#else
inline constexpr const char* kMpiFlavour = "openmpi";
#endif

// `options` adds the program's options to the app; `body(rank, size)` runs after a successful
// parse and returns the exit status. A command-line mistake exits with CLI11's status, any
// other exception with status 2. Returns the status for main to return.
int run_mpi_program(int argc, char** argv, const std::string& program, const std::string& description,
                    const std::function<void(CLI::App&)>& options, const std::function<int(int rank, int size)>& body);

}  // namespace gridcoll
