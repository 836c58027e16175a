// The calls that make an intracommunicator, intercepted so that gridcoll's duplicate of it is
// made there, while all its members call together (communicator_made, comm_state.hpp): its
// non-blocking collectives can then run gridcoll's methods from the first call, since their
// start must be local and cannot make the duplicate. MPI_Comm_idup and MPI_Comm_idup_with_info
// are left alone (their communicator is not ready when they return); so is
// MPI_Intercomm_create, whose intercommunicator gridcoll leaves to MPI.
#include <mpi.h>

#include "comm_state.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

int made(int rc, MPI_Comm* newcomm) {
    if (rc == MPI_SUCCESS && newcomm) gridcoll::pmpi::communicator_made(*newcomm);
    return rc;
}

}  // namespace

GRIDCOLL_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) { return made(PMPI_Comm_dup(comm, newcomm), newcomm); }

GRIDCOLL_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
    return made(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    return made(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
    return made(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    return made(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
    return made(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm) {
    return made(PMPI_Intercomm_merge(intercomm, high, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                                    MPI_Comm* newcomm) {
    return made(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
    return made(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                                     MPI_Comm* newcomm) {
    return made(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                                          MPI_Comm* newcomm) {
    return made(PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm), newcomm);
}

GRIDCOLL_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                                   const int sourceweights[], int outdegree, const int destinations[],
                                                   const int destweights[], MPI_Info info, int reorder,
                                                   MPI_Comm* newcomm) {
    return made(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                                destweights, info, reorder, newcomm),
                newcomm);
}
