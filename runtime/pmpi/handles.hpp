// The datatypes, reduction operations and communicator a pending non-blocking collective still
// uses. MPI lets a program free them (MPI_Type_free, MPI_Op_free, MPI_Comm_free) before the
// operation completes, and the
// operation must complete normally; the MPI library keeps them alive by reference counts, which
// a profiling library cannot reach. So a gridcoll operation that goes pending holds the handles it
// will use (its reduction's operation and datatype, the datatypes it unpacks into, the
// communicator, whose duplicate carries its messages and which its unpacking names), the
// intercepted frees of a held handle are deferred (the program's handle is set to null at once,
// as MPI does), and the real free is made when the last operation holding it completes.
#pragma once

#include <mpi.h>

namespace gridcoll::pmpi {

// Holding skips the null handles and the predefined operations; no MPI call is made on a handle
// (one that matters only at the root may be anything elsewhere). Named apart, not overloaded:
// in MPICH both handles are ints.
void hold_op(MPI_Op op);
void hold_type(MPI_Datatype type);
void release_op(MPI_Op op);
void release_type(MPI_Datatype type);
void hold_comm(MPI_Comm comm);  // MPI_COMM_WORLD and MPI_COMM_SELF are skipped too
void release_comm(MPI_Comm comm);
bool comm_held(MPI_Comm comm);

// For the intercepted frees: true (and the handle set to null) when the free is deferred.
bool defer_op_free(MPI_Op* op);
bool defer_type_free(MPI_Datatype* type);
bool defer_comm_free(MPI_Comm* comm);
// A deferred MPI_Comm_free due on the progress thread waits for a thread of the program (MPI
// implementations are least tried on communicators freed by one thread while another makes
// them): the engine's progress and drain call this from the program's threads.
void free_deferred_comms();

}  // namespace gridcoll::pmpi
