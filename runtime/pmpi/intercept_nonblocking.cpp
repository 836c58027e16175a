// The profiling-interface entry points of the non-blocking collectives and of the calls that
// complete requests (nonblocking.hpp). An MPI_I... call runs the blocking call's code with the
// program's request (collectives.hpp); MPI_Test, MPI_Wait and their -all, -any and -some forms
// advance every pending gridcoll operation before they ask MPI, and wait by advancing and
// testing in turn while one is pending (a generalized request completes only when gridcoll
// completes it); under SMPI the waits block in MPI instead where every request is the library's
// or the program's point-to-point one (blocking_wait.cpp). Calls made from inside the library, or
// with nothing pending, go straight to MPI.
// In all of them, and in MPI_Request_get_status, the library's persistent collectives' handles
// stand for their active requests (persistent.hpp).
#include <mpi.h>

#include "collectives.hpp"
#include "comm_state.hpp"
#include "handed_requests.hpp"
#include "handles.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using gridcoll::pmpi::engine;
using gridcoll::pmpi::HandedBack;
using gridcoll::pmpi::mpi_alone;
using gridcoll::pmpi::test_any;
using gridcoll::pmpi::test_some;
using gridcoll::pmpi::persistent::Swap;

// (The request it gives is a collective's, the library's or MPI's own: never one kept as the
// program's point-to-point request, handed_requests.hpp.)
template <class Call>
int nonblocking(const char* name, MPI_Comm comm, std::vector<MPI_Datatype> types, MPI_Op op, MPI_Request* req,
                Call&& call) {
    const int rc = gridcoll::pmpi::run_nonblocking(name, comm, std::move(types), op, std::forward<Call>(call));
    if (req) gridcoll::pmpi::forget_point_to_point(*req);
    return rc;
}

// Waits by advancing gridcoll's operations and testing the program's requests in turn.
template <class Test>
int wait_by_testing(Test&& test) {
    int flag = 0;
    while (true) {
        engine().progress();
        const int rc = test(&flag);
        if (rc != MPI_SUCCESS || flag) return rc;
    }
}

}  // namespace

GRIDCOLL_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ibarrier", comm, {}, MPI_OP_NULL, req, [&] { return gridcoll::pmpi::barrier(comm, req); });
}

GRIDCOLL_EXPORT int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ibcast", comm, {type}, MPI_OP_NULL,
                       req, [&] { return gridcoll::pmpi::bcast(buf, count, type, root, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                                MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ireduce", comm, {type}, op,
                       req, [&] { return gridcoll::pmpi::reduce(sendbuf, recvbuf, count, type, op, root, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Iallreduce", comm, {type}, op,
                       req, [&] { return gridcoll::pmpi::allreduce(sendbuf, recvbuf, count, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Iscan", comm, {type}, op,
                       req, [&] { return gridcoll::pmpi::scan(sendbuf, recvbuf, count, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Iexscan", comm, {type}, op,
                       req, [&] { return gridcoll::pmpi::exscan(sendbuf, recvbuf, count, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Iscatter", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Igather", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Iallgather", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ialltoall", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                              MPI_Op op, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ireduce_scatter_block", comm, {type}, op, req, [&] {
        return gridcoll::pmpi::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                                        MPI_Op op, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ireduce_scatter", comm, {type}, op, req, [&] {
        return gridcoll::pmpi::reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Request* req) {
    return nonblocking("MPI_Iallgatherv", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                          req);
    });
}

GRIDCOLL_EXPORT int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Igatherv", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                                       req);
    });
}

GRIDCOLL_EXPORT int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Iscatterv", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                        req);
    });
}

GRIDCOLL_EXPORT int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ialltoallv", comm, {sendtype, recvtype}, MPI_OP_NULL, req, [&] {
        return gridcoll::pmpi::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                         comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* req) {
    return nonblocking("MPI_Ialltoallw", comm, gridcoll::pmpi::alltoallw_types(sendbuf, sendtypes, recvtypes, comm),
                       MPI_OP_NULL, req, [&] {
                           return gridcoll::pmpi::alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                                            recvcounts, rdispls, recvtypes, comm, req);
                       });
}

// ---- completing requests ----------------------------------------------------------------

GRIDCOLL_EXPORT int MPI_Wait(MPI_Request* req, MPI_Status* status) {
    const Swap persistent(1, req);
    const HandedBack handed(1, req);
    // (A null request at once: SimGrid 3.32's MPI_Test sets no flag for one with MPI_STATUS_IGNORE.)
    if (mpi_alone() || *req == MPI_REQUEST_NULL || gridcoll::pmpi::wait_handed(1, req)) return PMPI_Wait(req, status);
    if (gridcoll::pmpi::point_to_point(*req)) return gridcoll::pmpi::wait_point_to_point(req, status);  // (SMPI)
    return wait_by_testing([&](int* flag) { return PMPI_Test(req, flag, status); });
}

GRIDCOLL_EXPORT int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
    const Swap persistent(1, req);
    const HandedBack handed(1, req);
    if (!mpi_alone()) engine().progress();
    if (*req == MPI_REQUEST_NULL) {  // (SimGrid 3.32's sets no flag for one with MPI_STATUS_IGNORE)
        *flag = 1;
        return PMPI_Wait(req, status);
    }
    return PMPI_Test(req, flag, status);
}

GRIDCOLL_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    const Swap persistent(n, reqs);
    const HandedBack handed(n, reqs);
    if (mpi_alone() || gridcoll::pmpi::wait_handed(n, reqs)) return gridcoll::pmpi::waitall_keeping_handed(n, reqs, statuses);
    const int rc = gridcoll::pmpi::wait_all_known(n, reqs, statuses);
    if (rc != gridcoll::pmpi::kTestInstead) return rc;
#ifdef GRIDCOLL_SMPI
    return gridcoll::pmpi::wait_all_testing_each(n, reqs, statuses);
#else
    return wait_by_testing([&](int* flag) { return PMPI_Testall(n, reqs, flag, statuses); });
#endif
}

GRIDCOLL_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    const Swap persistent(n, reqs);
    const HandedBack handed(n, reqs);
    if (!mpi_alone()) engine().progress();
    return gridcoll::pmpi::testall_keeping_handed(n, reqs, flag, statuses);
}

GRIDCOLL_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
    const Swap persistent(n, reqs);
    const HandedBack handed(n, reqs);
    if (mpi_alone()) {
        *index = gridcoll::pmpi::complete_handed_one(n, reqs, status);
        return *index != MPI_UNDEFINED ? MPI_SUCCESS : PMPI_Waitany(n, reqs, index, status);
    }
    const int rc = gridcoll::pmpi::wait_any_known(n, reqs, index, status);
    if (rc != gridcoll::pmpi::kTestInstead) return rc;
    return wait_by_testing([&](int* flag) { return test_any(n, reqs, index, flag, status); });
}

GRIDCOLL_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
    const Swap persistent(n, reqs);
    const HandedBack handed(n, reqs);
    if (mpi_alone()) {
        *index = gridcoll::pmpi::complete_handed_one(n, reqs, status);
        *flag = *index != MPI_UNDEFINED;
        return *flag ? MPI_SUCCESS : PMPI_Testany(n, reqs, index, flag, status);
    }
    engine().progress();
    return test_any(n, reqs, index, flag, status);
}

GRIDCOLL_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    const Swap persistent(n, reqs);
    const HandedBack handed(n, reqs);
    if (mpi_alone()) {
        *outcount = gridcoll::pmpi::complete_handed_some(n, reqs, indices, statuses);
        return *outcount > 0 ? MPI_SUCCESS : PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    }
    const int rc = gridcoll::pmpi::wait_some_known(n, reqs, outcount, indices, statuses);
    if (rc != gridcoll::pmpi::kTestInstead) return rc;
    return wait_by_testing([&](int* flag) {
        const int rc = test_some(n, reqs, outcount, indices, statuses);
        *flag = *outcount != 0;  // some completed, or MPI_UNDEFINED: none active
        return rc;
    });
}

GRIDCOLL_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    const Swap persistent(n, reqs);
    const HandedBack handed(n, reqs);
    if (mpi_alone()) {
        *outcount = gridcoll::pmpi::complete_handed_some(n, reqs, indices, statuses);
        return *outcount > 0 ? MPI_SUCCESS : PMPI_Testsome(n, reqs, outcount, indices, statuses);
    }
    engine().progress();
    return test_some(n, reqs, outcount, indices, statuses);
}

GRIDCOLL_EXPORT int MPI_Request_get_status(MPI_Request req, int* flag, MPI_Status* status) {
    const Swap persistent(1, &req);
    if (!mpi_alone()) engine().progress();
    return PMPI_Request_get_status(req, flag, status);
}

// ---- freeing what a pending operation uses (handles.hpp) ----------------------------------

GRIDCOLL_EXPORT int MPI_Op_free(MPI_Op* op) {
    return gridcoll::pmpi::defer_op_free(op) ? MPI_SUCCESS : PMPI_Op_free(op);
}

GRIDCOLL_EXPORT int MPI_Type_free(MPI_Datatype* type) {
    return gridcoll::pmpi::defer_type_free(type) ? MPI_SUCCESS : PMPI_Type_free(type);
}

GRIDCOLL_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
    return gridcoll::pmpi::defer_comm_free(comm) ? MPI_SUCCESS : PMPI_Comm_free(comm);
}
