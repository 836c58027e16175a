// The Fortran entry points on Open MPI and SMPI (fortran.hpp) that set the library up and down and
// watch the program's communicators: MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Wtime /
// MPI_Wtick go to the library's C entry points; the communicator constructors run the MPI
// library's own Fortran entry point (which knows Fortran's logicals and MPI_UNWEIGHTED) and then make gridcoll's
// duplicate of the new communicator (communicator_made); the frees go to the library's deferring
// C entry points. Open MPI 4.1's mpi_f08 module calls some constructors by their Fortran
// profiling names (pmpi_cart_create_ ...): those names are defined too.
#include "fortran.hpp"

using namespace gridcoll::pmpi::fortran;

GRIDCOLL_FORTRAN(void, mpi_init, MPI_INIT, ompi_init_f, F* ierr) {
    int argc = 0;
    char** argv = nullptr;
    set_error(ierr, MPI_Init(&argc, &argv));
}

GRIDCOLL_FORTRAN(void, mpi_init_thread, MPI_INIT_THREAD, ompi_init_thread_f, F* required, F* provided, F* ierr) {
    int argc = 0;
    char** argv = nullptr;
    int given = MPI_THREAD_SINGLE;
    const int rc = MPI_Init_thread(&argc, &argv, *required, &given);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *provided = given;
}

GRIDCOLL_FORTRAN(void, mpi_finalize, MPI_FINALIZE, ompi_finalize_f, F* ierr) { set_error(ierr, MPI_Finalize()); }

GRIDCOLL_FORTRAN(double, mpi_wtime, MPI_WTIME, ompi_wtime_f, void) { return MPI_Wtime(); }
GRIDCOLL_FORTRAN(double, mpi_wtick, MPI_WTICK, ompi_wtick_f, void) { return MPI_Wtick(); }

// ---- freeing: the C entry points defer a free while a pending operation holds the handle ----

GRIDCOLL_FORTRAN(void, mpi_comm_free, MPI_COMM_FREE, ompi_comm_free_f, F* c, F* ierr) {
    MPI_Comm handle = comm(c);
    const int rc = MPI_Comm_free(&handle);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *c = PMPI_Comm_c2f(handle);
}

GRIDCOLL_FORTRAN(void, mpi_type_free, MPI_TYPE_FREE, ompi_type_free_f, F* t, F* ierr) {
    MPI_Datatype handle = type(t);
    const int rc = MPI_Type_free(&handle);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *t = PMPI_Type_c2f(handle);
}

GRIDCOLL_FORTRAN(void, mpi_op_free, MPI_OP_FREE, ompi_op_free_f, F* o, F* ierr) {
    MPI_Op handle = op(o);
    const int rc = MPI_Op_free(&handle);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *o = PMPI_Op_c2f(handle);
}

// ---- the communicator constructors: Open MPI's own, then gridcoll's duplicate --------------

GRIDCOLL_FORTRAN(void, mpi_comm_dup, MPI_COMM_DUP, ompi_comm_dup_f, F* c, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(comm_dup), out, ierr, c);
}

GRIDCOLL_FORTRAN(void, mpi_comm_dup_with_info, MPI_COMM_DUP_WITH_INFO, ompi_comm_dup_with_info_f, F* c, F* info, F* out,
                 F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(comm_dup_with_info), out, ierr, c, info);
}

GRIDCOLL_FORTRAN(void, mpi_comm_split, MPI_COMM_SPLIT, ompi_comm_split_f, F* c, F* color, F* key, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(comm_split), out, ierr, c, color, key);
}

GRIDCOLL_FORTRAN(void, mpi_comm_split_type, MPI_COMM_SPLIT_TYPE, ompi_comm_split_type_f, F* c, F* split_type, F* key,
                 F* info, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(comm_split_type), out, ierr, c, split_type, key, info);
}

GRIDCOLL_FORTRAN(void, mpi_comm_create, MPI_COMM_CREATE, ompi_comm_create_f, F* c, F* group, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(comm_create), out, ierr, c, group);
}

GRIDCOLL_FORTRAN(void, mpi_comm_create_group, MPI_COMM_CREATE_GROUP, ompi_comm_create_group_f, F* c, F* group, F* tag,
                 F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(comm_create_group), out, ierr, c, group, tag);
}

GRIDCOLL_FORTRAN(void, mpi_intercomm_merge, MPI_INTERCOMM_MERGE, ompi_intercomm_merge_f, F* c, F* high, F* out,
                 F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(intercomm_merge), out, ierr, c, high);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_intercomm_merge_, gridcoll_fortran_mpi_intercomm_merge, F* c, F* high, F* out, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_cart_create, MPI_CART_CREATE, ompi_cart_create_f, F* c, F* ndims, F* dims, F* periods,
                 F* reorder, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(cart_create), out, ierr, c, ndims, dims, periods, reorder);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_cart_create_, gridcoll_fortran_mpi_cart_create, F* c, F* ndims, F* dims, F* periods,
                      F* reorder, F* out, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_cart_sub, MPI_CART_SUB, ompi_cart_sub_f, F* c, F* remain, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(cart_sub), out, ierr, c, remain);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_cart_sub_, gridcoll_fortran_mpi_cart_sub, F* c, F* remain, F* out, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_graph_create, MPI_GRAPH_CREATE, ompi_graph_create_f, F* c, F* nnodes, F* index, F* edges,
                 F* reorder, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(graph_create), out, ierr, c, nnodes, index, edges, reorder);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_graph_create_, gridcoll_fortran_mpi_graph_create, F* c, F* nnodes, F* index, F* edges,
                      F* reorder, F* out, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE, ompi_dist_graph_create_f, F* c, F* n, F* sources,
                 F* degrees, F* destinations, F* weights, F* info, F* reorder, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(dist_graph_create), out, ierr, c, n, sources, degrees, destinations, weights, info, reorder);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_dist_graph_create_, gridcoll_fortran_mpi_dist_graph_create, F* c, F* n, F* sources,
                      F* degrees, F* destinations, F* weights, F* info, F* reorder, F* out, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
                 ompi_dist_graph_create_adjacent_f, F* c, F* indegree, F* sources, F* sourceweights, F* outdegree,
                 F* destinations, F* destweights, F* info, F* reorder, F* out, F* ierr) {
    construct(GRIDCOLL_NATIVE_FORTRAN(dist_graph_create_adjacent), out, ierr, c, indegree, sources, sourceweights, outdegree,
              destinations, destweights, info, reorder);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_dist_graph_create_adjacent_, gridcoll_fortran_mpi_dist_graph_create_adjacent, F* c,
                      F* indegree, F* sources, F* sourceweights, F* outdegree, F* destinations, F* destweights, F* info,
                      F* reorder, F* out, F* ierr)
