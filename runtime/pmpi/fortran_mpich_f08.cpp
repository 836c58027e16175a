// MPICH's mpi_f08 entry points of the calls the library intercepts and that MPICH's f08
// bindings send to PMPI_* themselves (fortran.hpp): MPI_Init, MPI_Init_thread, MPI_Finalize,
// MPI_Wtime / MPI_Wtick, MPI_Barrier and MPI_Ibarrier, the frees (to the library's C entry
// points), the communicator constructors (MPICH's own, then gridcoll's duplicate), and the
// waits and tests (fortran_common.cpp), and what takes a persistent collective's handle
// (MPI_Start, MPI_Startall, MPI_Request_free, MPI_Request_get_status: persistent.hpp; its init
// calls have buffers). Its f08 calls with buffers call MPI_* and need nothing.
// An absent optional ierror arrives as a null pointer. MPICH's handles are ints, Fortran's too.
#include "fortran.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

#define GRIDCOLL_F08 extern "C" __attribute__((visibility("default")))

using namespace gridcoll::pmpi::fortran;

GRIDCOLL_F08 void mpi_init_f08_(F* ierr) { set_error(ierr, MPI_Init(nullptr, nullptr)); }

GRIDCOLL_F08 void mpi_init_thread_f08_(F* required, F* provided, F* ierr) {
    int given = MPI_THREAD_SINGLE;
    const int rc = MPI_Init_thread(nullptr, nullptr, *required, &given);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *provided = given;
}

GRIDCOLL_F08 void mpi_finalize_f08_(F* ierr) { set_error(ierr, MPI_Finalize()); }
GRIDCOLL_F08 double mpi_wtime_f08_() { return MPI_Wtime(); }
GRIDCOLL_F08 double mpi_wtick_f08_() { return MPI_Wtick(); }

GRIDCOLL_F08 void mpi_barrier_f08_(F* c, F* ierr) { set_error(ierr, MPI_Barrier(comm(c))); }

GRIDCOLL_F08 void mpi_ibarrier_f08_(F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ibarrier(comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_F08 void mpi_comm_free_f08_(F* c, F* ierr) {
    MPI_Comm handle = comm(c);
    const int rc = MPI_Comm_free(&handle);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *c = PMPI_Comm_c2f(handle);
}

GRIDCOLL_F08 void mpi_type_free_f08_(F* t, F* ierr) {
    MPI_Datatype handle = type(t);
    const int rc = MPI_Type_free(&handle);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *t = PMPI_Type_c2f(handle);
}

GRIDCOLL_F08 void mpi_op_free_f08_(F* o, F* ierr) {
    MPI_Op handle = op(o);
    const int rc = MPI_Op_free(&handle);
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *o = PMPI_Op_c2f(handle);
}

// ---- the communicator constructors ----------------------------------------------------------

GRIDCOLL_F08 void mpi_comm_dup_f08_(F* c, F* out, F* ierr) { construct("mpi_comm_dup_f08_", out, ierr, c); }

GRIDCOLL_F08 void mpi_comm_dup_with_info_f08_(F* c, F* info, F* out, F* ierr) {
    construct("mpi_comm_dup_with_info_f08_", out, ierr, c, info);
}

GRIDCOLL_F08 void mpi_comm_split_f08_(F* c, F* color, F* key, F* out, F* ierr) {
    construct("mpi_comm_split_f08_", out, ierr, c, color, key);
}

GRIDCOLL_F08 void mpi_comm_split_type_f08_(F* c, F* split_type, F* key, F* info, F* out, F* ierr) {
    construct("mpi_comm_split_type_f08_", out, ierr, c, split_type, key, info);
}

GRIDCOLL_F08 void mpi_comm_create_f08_(F* c, F* group, F* out, F* ierr) {
    construct("mpi_comm_create_f08_", out, ierr, c, group);
}

GRIDCOLL_F08 void mpi_comm_create_group_f08_(F* c, F* group, F* tag, F* out, F* ierr) {
    construct("mpi_comm_create_group_f08_", out, ierr, c, group, tag);
}

GRIDCOLL_F08 void mpi_intercomm_merge_f08_(F* c, F* high, F* out, F* ierr) {
    construct("mpi_intercomm_merge_f08_", out, ierr, c, high);
}

GRIDCOLL_F08 void mpi_cart_create_f08_(F* c, F* ndims, F* dims, F* periods, F* reorder, F* out, F* ierr) {
    construct("mpi_cart_create_f08_", out, ierr, c, ndims, dims, periods, reorder);
}

GRIDCOLL_F08 void mpi_cart_sub_f08_(F* c, F* remain, F* out, F* ierr) {
    construct("mpi_cart_sub_f08_", out, ierr, c, remain);
}

GRIDCOLL_F08 void mpi_graph_create_f08_(F* c, F* nnodes, F* index, F* edges, F* reorder, F* out, F* ierr) {
    construct("mpi_graph_create_f08_", out, ierr, c, nnodes, index, edges, reorder);
}

GRIDCOLL_F08 void mpi_dist_graph_create_f08_(F* c, F* n, F* sources, F* degrees, F* destinations, F* weights, F* info,
                                             F* reorder, F* out, F* ierr) {
    construct("mpi_dist_graph_create_f08_", out, ierr, c, n, sources, degrees, destinations, weights, info, reorder);
}

GRIDCOLL_F08 void mpi_dist_graph_create_adjacent_f08_(F* c, F* indegree, F* sources, F* sourceweights, F* outdegree,
                                                      F* destinations, F* destweights, F* info, F* reorder, F* out,
                                                      F* ierr) {
    construct("mpi_dist_graph_create_adjacent_f08_", out, ierr, c, indegree, sources, sourceweights, outdegree,
              destinations, destweights, info, reorder);
}

// ---- waits and tests ------------------------------------------------------------------------

namespace {

const NativeCompletion& mpich_f08() {
    static const char* const names[8] = {"mpi_wait_f08_",     "mpi_test_f08_",    "mpi_waitall_f08_",
                                         "mpi_testall_f08_",  "mpi_waitany_f08_", "mpi_testany_f08_",
                                         "mpi_waitsome_f08_", "mpi_testsome_f08_"};
    static const NativeCompletion n = native_completion(names);
    return n;
}

}  // namespace

GRIDCOLL_F08 void mpi_wait_f08_(F* req, F* status, F* ierr) { wait(mpich_f08(), req, status, ierr); }
GRIDCOLL_F08 void mpi_test_f08_(F* req, F* flag, F* status, F* ierr) { test(mpich_f08(), req, flag, status, ierr); }

GRIDCOLL_F08 void mpi_waitall_f08_(F* n, F* reqs, F* statuses, F* ierr) {
    waitall(mpich_f08(), n, reqs, statuses, ierr);
}

GRIDCOLL_F08 void mpi_testall_f08_(F* n, F* reqs, F* flag, F* statuses, F* ierr) {
    testall(mpich_f08(), n, reqs, flag, statuses, ierr);
}

GRIDCOLL_F08 void mpi_waitany_f08_(F* n, F* reqs, F* index, F* status, F* ierr) {
    waitany(mpich_f08(), n, reqs, index, status, ierr);
}

GRIDCOLL_F08 void mpi_testany_f08_(F* n, F* reqs, F* index, F* flag, F* status, F* ierr) {
    testany(mpich_f08(), n, reqs, index, flag, status, ierr);
}

GRIDCOLL_F08 void mpi_waitsome_f08_(F* n, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
    waitsome(mpich_f08(), n, reqs, outcount, indices, statuses, ierr);
}

GRIDCOLL_F08 void mpi_testsome_f08_(F* n, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
    testsome(mpich_f08(), n, reqs, outcount, indices, statuses, ierr);
}

// ---- persistent collectives' handles --------------------------------------------------------

namespace {

namespace persistent = gridcoll::pmpi::persistent;

void start_one(F* req, F* ierr) {
    static const auto native = next_as<void(F*, F*)>("mpi_start_f08_");
    MPI_Request handle = PMPI_Request_f2c(*req);
    int rc = MPI_SUCCESS;
    if (!persistent::start(&handle, &rc)) return native(req, ierr);
    set_error(ierr, rc);
}

}  // namespace

GRIDCOLL_F08 void mpi_start_f08_(F* req, F* ierr) { start_one(req, ierr); }

GRIDCOLL_F08 void mpi_startall_f08_(F* n, F* reqs, F* ierr) {
    F rc = MPI_SUCCESS;
    for (F i = 0; i < *n && rc == MPI_SUCCESS; ++i) start_one(&reqs[i], &rc);
    set_error(ierr, rc);
}

GRIDCOLL_F08 void mpi_request_free_f08_(F* req, F* ierr) {
    static const auto native = next_as<void(F*, F*)>("mpi_request_free_f08_");
    MPI_Request handle = PMPI_Request_f2c(*req);
    int rc = MPI_SUCCESS;
    if (!persistent::release(&handle, &rc)) return native(req, ierr);
    *req = PMPI_Request_c2f(handle);
    set_error(ierr, rc);
}

GRIDCOLL_F08 void mpi_request_get_status_f08_(F* req, F* flag, F* status, F* ierr) {
    static const auto native = next_as<void(F*, F*, F*, F*)>("mpi_request_get_status_f08_");
    if (!gridcoll::pmpi::mpi_alone()) gridcoll::pmpi::engine().progress();
    MPI_Request active = MPI_REQUEST_NULL;
    F stand_in = *req;
    if (persistent::active_of(PMPI_Request_f2c(*req), &active)) stand_in = PMPI_Request_c2f(active);
    native(&stand_in, flag, status, ierr);
}
