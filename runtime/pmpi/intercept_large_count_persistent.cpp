// The profiling-interface entry points of MPI 4's large-count reduce-scatter (its blocking and
// non-blocking _c forms) and of the large-count persistent collectives (MPI_Bcast_init_c ...
// MPI_Reduce_scatter_init_c) whose block sizes every rank knows alike (large_count.hpp): where a
// block's bytes fit in an int, the collective the library runs (persistent.hpp: the init call
// makes the MPI library's own _c persistent request, whose handle the program keeps; each start
// runs the int form); else the MPI library's own. The v-variants' and
// MPI_Alltoallw_init_c are in intercept_large_count_irregular.cpp; MPI_Barrier_init has no _c
// form (intercept_persistent.cpp takes it).
#include "large_count.hpp"

#ifdef GRIDCOLL_LARGE_COUNT

#include <memory>

#include "collectives.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace pmpi = gridcoll::pmpi;
namespace large_count = gridcoll::pmpi::large_count;
namespace persistent = gridcoll::pmpi::persistent;
using pmpi::large_count::int_count;
using pmpi::large_count::int_counts;
using pmpi::large_count::CountPair;

GRIDCOLL_EXPORT int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                         MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const auto counts = int_counts(comm, recvcounts, type);
    if (!counts) return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm);
    return pmpi::reduce_scatter(sendbuf, recvbuf, counts->data(), type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                          MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const auto own = [&](MPI_Request* r) { return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm, r); };
    const auto counts = int_counts(comm, recvcounts, type);
    if (!counts) return own(req);
    const pmpi::large_count::NativeCall native(own);  // MPI reads the program's array, not `counts`
    return pmpi::run_nonblocking("MPI_Ireduce_scatter_c", comm, {type}, op,
                                 [&] { return pmpi::reduce_scatter(sendbuf, recvbuf, counts->data(), type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                                              MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* req) {
    auto counts = int_counts(comm, recvcounts, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Reduce_scatter_init_c(sendbuf, recvbuf, recvcounts, type, op, comm, info, counts ? &native : req);
    if (!counts) return rc;
    const auto held = std::make_shared<const std::vector<int>>(std::move(*counts));  // as long as the handle
    return persistent::make(rc, native, "MPI_Reduce_scatter_init_c", comm, {type}, op, [=](MPI_Request* r) {
        const large_count::CForm start_c_form;  // a start of the _c form
        return pmpi::reduce_scatter(sendbuf, recvbuf, held->data(), type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                                    MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                    MPI_Request* req) {
    const int n = int_count(comm, recvcount, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Reduce_scatter_block_init_c(sendbuf, recvbuf, recvcount, type, op, comm, info, n < 0 ? req : &native);
    if (n < 0) return rc;
    return persistent::make(rc, native, "MPI_Reduce_scatter_block_init_c", comm, {type}, op, [=](MPI_Request* r) {
        const large_count::CForm start_c_form;  // a start of the _c form
        return pmpi::reduce_scatter_block(sendbuf, recvbuf, n, type, op, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int MPI_Bcast_init_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                                     MPI_Info info, MPI_Request* req) {
    const int n = int_count(comm, count, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Bcast_init_c(buf, count, type, root, comm, info, n < 0 ? req : &native);
    if (n < 0) return rc;
    return persistent::make(rc, native, "MPI_Bcast_init_c", comm, {type}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::bcast(buf, n, type, root, comm, r);
                            }, req);
}

GRIDCOLL_EXPORT int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    const int n = int_count(comm, count, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Reduce_init_c(sendbuf, recvbuf, count, type, op, root, comm, info, n < 0 ? req : &native);
    if (n < 0) return rc;
    return persistent::make(rc, native, "MPI_Reduce_init_c", comm, {type}, op,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::reduce(sendbuf, recvbuf, n, type, op, root, comm, r);
                            }, req);
}

GRIDCOLL_EXPORT int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    const int n = int_count(comm, count, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Allreduce_init_c(sendbuf, recvbuf, count, type, op, comm, info, n < 0 ? req : &native);
    if (n < 0) return rc;
    return persistent::make(rc, native, "MPI_Allreduce_init_c", comm, {type}, op,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::allreduce(sendbuf, recvbuf, n, type, op, comm, r);
                            }, req);
}

GRIDCOLL_EXPORT int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    const int n = int_count(comm, count, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Scan_init_c(sendbuf, recvbuf, count, type, op, comm, info, n < 0 ? req : &native);
    if (n < 0) return rc;
    return persistent::make(rc, native, "MPI_Scan_init_c", comm, {type}, op,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::scan(sendbuf, recvbuf, n, type, op, comm, r);
                            }, req);
}

GRIDCOLL_EXPORT int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    const int n = int_count(comm, count, type);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Exscan_init_c(sendbuf, recvbuf, count, type, op, comm, info, n < 0 ? req : &native);
    if (n < 0) return rc;
    return persistent::make(rc, native, "MPI_Exscan_init_c", comm, {type}, op,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::exscan(sendbuf, recvbuf, n, type, op, comm, r);
                            }, req);
}

GRIDCOLL_EXPORT int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                       MPI_Info info, MPI_Request* req) {
    const CountPair n = pmpi::large_count::scatter_counts(comm, root, recvbuf, sendcount, sendtype, recvcount, recvtype);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                       n.ok ? &native : req);
    if (!n.ok) return rc;
    return persistent::make(rc, native, "MPI_Scatter_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        const large_count::CForm start_c_form;  // a start of the _c form
        return pmpi::scatter(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, root, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                      MPI_Info info, MPI_Request* req) {
    const CountPair n = pmpi::large_count::gather_counts(comm, root, sendbuf, sendcount, sendtype, recvcount, recvtype);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Gather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                      n.ok ? &native : req);
    if (!n.ok) return rc;
    return persistent::make(rc, native, "MPI_Gather_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        const large_count::CForm start_c_form;  // a start of the _c form
        return pmpi::gather(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, root, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Info info, MPI_Request* req) {
    const CountPair n = pmpi::large_count::every_rank_counts(comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Allgather_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                         n.ok ? &native : req);
    if (!n.ok) return rc;
    return persistent::make(rc, native, "MPI_Allgather_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        const large_count::CForm start_c_form;  // a start of the _c form
        return pmpi::allgather(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, comm, r);
    }, req);
}

GRIDCOLL_EXPORT int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* req) {
    const CountPair n = pmpi::large_count::every_rank_counts(comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                                        n.ok ? &native : req);
    if (!n.ok) return rc;
    return persistent::make(rc, native, "MPI_Alltoall_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [=](MPI_Request* r) {
        const large_count::CForm start_c_form;  // a start of the _c form
        return pmpi::alltoall(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, comm, r);
    }, req);
}

#endif  // GRIDCOLL_LARGE_COUNT
