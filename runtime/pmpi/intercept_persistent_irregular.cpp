// The persistent forms of the reduce-scatters, the v-variants and alltoallw (intercept_persistent.cpp).
// Their count and displacement arrays are read at every start, as MPI 4 lets the program not
// change them while the handle lives.
#include <mpi.h>

#include "collectives.hpp"
#include "persistent.hpp"
#include "persistent_names.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

#ifdef GRIDCOLL_INIT

namespace persistent = gridcoll::pmpi::persistent;

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Reduce_scatter_block)(const void* sendbuf, void* recvbuf, int recvcount,
                                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                        MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Reduce_scatter_block)(sendbuf, recvbuf, recvcount, type, op, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Reduce_scatter_block), comm, {type}, op, [=](MPI_Request* r) {
        return gridcoll::pmpi::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Reduce_scatter)(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                  MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Reduce_scatter)(sendbuf, recvbuf, recvcounts, type, op, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Reduce_scatter), comm, {type}, op, [=](MPI_Request* r) {
        return gridcoll::pmpi::reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Allgatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                              MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                             info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Allgatherv), comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                return gridcoll::pmpi::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                                                  displs, recvtype, comm, r);
                            },
                            req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Gatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                           MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Gatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                                          comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Gatherv), comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                return gridcoll::pmpi::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                                               displs, recvtype, root, comm, r);
                            },
                            req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Scatterv)(const void* sendbuf, const int sendcounts[], const int displs[],
                                            MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                            int root, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Scatterv)(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                                           comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Scatterv), comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                return gridcoll::pmpi::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                                                recvcount, recvtype, root, comm, r);
                            },
                            req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Alltoallv)(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                            recvtype, comm, info, &native);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Alltoallv), comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                return gridcoll::pmpi::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                                 recvcounts, rdispls, recvtype, comm, r);
                            },
                            req);
}

GRIDCOLL_EXPORT int GRIDCOLL_INIT(Alltoallw)(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                             MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = GRIDCOLL_MPI_INIT(Alltoallw)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                            recvtypes, comm, info, &native);
    const gridcoll::pmpi::KeptTypes kept(sendbuf, sendtypes, recvtypes, comm);
    return persistent::make(rc, native, GRIDCOLL_INIT_NAME(Alltoallw), comm, kept.all(), MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                return gridcoll::pmpi::alltoallw(sendbuf, sendcounts, sdispls, kept.send(), recvbuf,
                                                                 recvcounts, rdispls, kept.recv(), comm, r);
                            },
                            req);
}

#endif  // GRIDCOLL_INIT
