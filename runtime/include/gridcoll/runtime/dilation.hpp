// The ranks' clock on a time-dilated testbed (emulator/include/gridcoll/emulator/testbed_dilation.hpp):
// the testbed exports GRIDCOLL_DILATION=K and everything is K times slower, so every time gridcoll
// measures inside an MPI program (the benchmark, discovery, PLogP measurement, MPI_Wtime under
// the PMPI library) is PMPI_Wtime() / K: the time of the undilated platform. PMPI_Wtime, not
// MPI_Wtime, so that a program with the PMPI library preloaded is not divided twice.
#pragma once

namespace gridcoll::mpi {

// K from GRIDCOLL_DILATION (1 when unset); a value that is not a number >= 1 ends the program
// with a message naming it.
double time_dilation();

// Seconds of the undilated platform (PMPI_Wtime() / K).
double undilated_wtime();

}  // namespace gridcoll::mpi
