// The profiling-interface entry points of the persistent collectives (persistent.hpp): the
// seventeen init calls (the sixteen collectives' and alltoallw's) the library runs as its
// non-blocking collectives — MPI 4's MPI_..._init where the MPI library has them (MPICH 4), Open
// MPI 4.1's MPIX_..._init (its pcollreq extension; the v-variants, alltoallw and the
// reduce-scatters in intercept_persistent_irregular.cpp) — and MPI_Start, MPI_Startall and
// MPI_Request_free. Each init call makes the MPI library's own persistent request first
// (persistent.hpp). Before MPI_Init, or in a program that never calls it (MPI 4's sessions
// alone), the init calls are the MPI library's own. The neighbourhood ones are always MPI's, as
// their blocking forms.
#include <mpi.h>

#include "collectives.hpp"
#include "handed_requests.hpp"
#include "persistent.hpp"
#include "persistent_names.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace persistent = gridcoll::pmpi::persistent;

#ifdef GRIDCOLL_INIT

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Barrier)(MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Barrier)(comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Barrier), comm, {}, MPI_OP_NULL,
                            [=](MPI_Request* r) { return gridcoll::pmpi::barrier(comm, r); }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Bcast)(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                         MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Bcast)(buf, count, type, root, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Bcast), comm, {type}, MPI_OP_NULL,
                            [=](MPI_Request* r) { return gridcoll::pmpi::bcast(buf, count, type, root, comm, r); },
                            req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Reduce)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                          int root, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Reduce)(sendbuf, recvbuf, count, type, op, root, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Reduce), comm, {type}, op, [=](MPI_Request* r) {
        return gridcoll::pmpi::reduce(sendbuf, recvbuf, count, type, op, root, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Allreduce)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Allreduce)(sendbuf, recvbuf, count, type, op, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Allreduce), comm, {type}, op, [=](MPI_Request* r) {
        return gridcoll::pmpi::allreduce(sendbuf, recvbuf, count, type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Scan)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                        MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Scan)(sendbuf, recvbuf, count, type, op, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Scan), comm, {type}, op, [=](MPI_Request* r) {
        return gridcoll::pmpi::scan(sendbuf, recvbuf, count, type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Exscan)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                          MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Exscan)(sendbuf, recvbuf, count, type, op, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Exscan), comm, {type}, op, [=](MPI_Request* r) {
        return gridcoll::pmpi::exscan(sendbuf, recvbuf, count, type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Scatter)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                           MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Scatter)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Scatter), comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        return gridcoll::pmpi::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Gather)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                          MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Gather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Gather), comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        return gridcoll::pmpi::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Allgather)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Allgather), comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        return gridcoll::pmpi::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Alltoall)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Alltoall), comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        return gridcoll::pmpi::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
    }, req);
}

#endif  // GRIDCOLL_INIT

// ---- starting and freeing ----------------------------------------------------------------

GRIDCOLL_EXPORT int MPI_Start(MPI_Request* req) {
    int rc = MPI_SUCCESS;
    return persistent::start(req, &rc) ? rc : PMPI_Start(req);
}

// In the array's order, the library's handles and MPI's own requests alike (the ranks may
// start persistent collectives in different orders: they match by their init calls).
GRIDCOLL_EXPORT int MPI_Startall(int n, MPI_Request reqs[]) {
    for (int i = 0; i < n; ++i) {
        const int rc = MPI_Start(&reqs[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

GRIDCOLL_EXPORT int MPI_Request_free(MPI_Request* req) {
    int rc = MPI_SUCCESS;
    if (req) gridcoll::pmpi::take_back(*req);  // a non-blocking collective's, freed unwaited
    return persistent::release(req, &rc) ? rc : PMPI_Request_free(req);
}
