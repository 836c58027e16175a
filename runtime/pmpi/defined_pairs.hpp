// Which predefined reduction operations MPI defines on which datatypes, as the MPI library
// beneath answers it: a reduction on a pair it refuses goes to it, so the program gets its error.
#pragma once

#include <mpi.h>

namespace gridcoll::pmpi {

// Whether MPI defines predefined operation `op` on `type` (on its predefined base, for a
// contiguous type of one; user-defined operations: true, as for any type gridcoll does not
// reduce). Asked of MPI once per pair: an MPI_Allreduce of one element on the library's own
// duplicate of MPI_COMM_SELF, errors returned; with one rank nothing is reduced, MPI checks the
// pair. The libraries differ (MPI_MAX on MPI_BYTE: MPICH refuses it, Open MPI reduces; MPI_LAND
// on MPI_FLOAT the other way round), so a pair MPI refuses makes the call MPI's, and the program
// gets MPI's error (or result) as without the library. The duplicate is made at MPI_Init
// (open_defined_pairs: never beside a program's pending MPI_Comm_idup) and freed at MPI_Finalize
// (forget_defined_pairs); without it every pair counts as defined.
bool mpi_defines(MPI_Op op, MPI_Datatype type);
void open_defined_pairs();
void forget_defined_pairs();

}  // namespace gridcoll::pmpi
