// The profiling-interface entry points of MPI 4's large-count collectives (large_count.hpp): the
// blocking and non-blocking _c forms of broadcast, the reductions and scans, scatter, gather,
// allgather, all-to-all and reduce_scatter_block, whose block sizes every rank knows alike — run
// as their int forms where a block's bytes fit in an int, else as the MPI library's own _c calls
// (reduce_scatter's are in intercept_large_count_persistent.cpp; the v-variants' and
// alltoallw's, never narrowed, in intercept_large_count_irregular.cpp). Each entry point's
// CForm makes the log name the call by its _c form.
#include "large_count.hpp"

#ifdef GRIDCOLL_LARGE_COUNT

#include "collectives.hpp"
#include "nonblocking.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace pmpi = gridcoll::pmpi;
namespace large_count = gridcoll::pmpi::large_count;
using pmpi::large_count::int_count;
using pmpi::large_count::CountPair;
using pmpi::run_nonblocking;  // an MPI_I... call in its int form (nonblocking.hpp)

GRIDCOLL_EXPORT int MPI_Bcast_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    return n < 0 ? PMPI_Bcast_c(buf, count, type, root, comm) : pmpi::bcast(buf, n, type, root, comm);
}

GRIDCOLL_EXPORT int MPI_Ibcast_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                                 MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    if (n < 0) return PMPI_Ibcast_c(buf, count, type, root, comm, req);
    return run_nonblocking("MPI_Ibcast_c", comm, {type}, MPI_OP_NULL, [&] { return pmpi::bcast(buf, n, type, root, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                 int root, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    return n < 0 ? PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm)
                 : pmpi::reduce(sendbuf, recvbuf, n, type, op, root, comm);
}

GRIDCOLL_EXPORT int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                  int root, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    if (n < 0) return PMPI_Ireduce_c(sendbuf, recvbuf, count, type, op, root, comm, req);
    return run_nonblocking("MPI_Ireduce_c", comm, {type}, op, [&] { return pmpi::reduce(sendbuf, recvbuf, n, type, op, root, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    return n < 0 ? PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm)
                 : pmpi::allreduce(sendbuf, recvbuf, n, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                                     MPI_Op op, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    if (n < 0) return PMPI_Iallreduce_c(sendbuf, recvbuf, count, type, op, comm, req);
    return run_nonblocking("MPI_Iallreduce_c", comm, {type}, op, [&] { return pmpi::allreduce(sendbuf, recvbuf, n, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    return n < 0 ? PMPI_Scan_c(sendbuf, recvbuf, count, type, op, comm) : pmpi::scan(sendbuf, recvbuf, n, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    if (n < 0) return PMPI_Iscan_c(sendbuf, recvbuf, count, type, op, comm, req);
    return run_nonblocking("MPI_Iscan_c", comm, {type}, op, [&] { return pmpi::scan(sendbuf, recvbuf, n, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    return n < 0 ? PMPI_Exscan_c(sendbuf, recvbuf, count, type, op, comm) : pmpi::exscan(sendbuf, recvbuf, n, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                  MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, count, type);
    if (n < 0) return PMPI_Iexscan_c(sendbuf, recvbuf, count, type, op, comm, req);
    return run_nonblocking("MPI_Iexscan_c", comm, {type}, op, [&] { return pmpi::exscan(sendbuf, recvbuf, n, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                               MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, recvcount, type);
    return n < 0 ? PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm)
                 : pmpi::reduce_scatter_block(sendbuf, recvbuf, n, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                                MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const int n = int_count(comm, recvcount, type);
    if (n < 0) return PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm, req);
    return run_nonblocking("MPI_Ireduce_scatter_block_c", comm, {type}, op,
                   [&] { return pmpi::reduce_scatter_block(sendbuf, recvbuf, n, type, op, comm, req); });
}

GRIDCOLL_EXPORT int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::scatter_counts(comm, root, recvbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return pmpi::scatter(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, root, comm);
}

GRIDCOLL_EXPORT int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                   MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::scatter_counts(comm, root, recvbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req);
    return run_nonblocking("MPI_Iscatter_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::scatter(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, root, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::gather_counts(comm, root, sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return pmpi::gather(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, root, comm);
}

GRIDCOLL_EXPORT int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                  MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::gather_counts(comm, root, sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req);
    return run_nonblocking("MPI_Igather_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::gather(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, root, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::every_rank_counts(comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return pmpi::allgather(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, comm);
}

GRIDCOLL_EXPORT int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::every_rank_counts(comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req);
    return run_nonblocking("MPI_Iallgather_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::allgather(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, comm, req);
    });
}

GRIDCOLL_EXPORT int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::every_rank_counts(comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return pmpi::alltoall(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, comm);
}

GRIDCOLL_EXPORT int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    const CountPair n = pmpi::large_count::every_rank_counts(comm, sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (!n.ok) return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req);
    return run_nonblocking("MPI_Ialltoall_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::alltoall(sendbuf, n.send, sendtype, recvbuf, n.recv, recvtype, comm, req);
    });
}

#endif  // GRIDCOLL_LARGE_COUNT
