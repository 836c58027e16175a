// The profiling-interface entry points: MPI_Init / MPI_Init_thread / MPI_Finalize set the
// library up and down (comm_state.hpp); the sixteen collectives and MPI_Alltoallw go to
// collectives.hpp; MPI_Wtime and MPI_Wtick follow a testbed's time dilation. Only these symbols
// leave the shared library (everything else is hidden), so the library can be preloaded into any
// program, gridcoll's own benchmark included.
#include <mpi.h>

#include "collectives.hpp"
#include "comm_state.hpp"
#include "gridcoll/runtime/dilation.hpp"
#include "progress_thread.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

// With the progress thread wanted, MPI is asked for MPI_THREAD_MULTIPLE whatever the program
// asked for (a higher level than required is what MPI_Init_thread may give anyway).
GRIDCOLL_EXPORT int MPI_Init(int* argc, char*** argv) {
    int provided = MPI_THREAD_SINGLE;
    const int rc = gridcoll::pmpi::progress_thread_wanted()
                       ? PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided)
                       : PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        PMPI_Query_thread(&provided);
        gridcoll::pmpi::start(provided);
        gridcoll::pmpi::start_progress_thread(provided);
    }
    return rc;
}

GRIDCOLL_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
    if (gridcoll::pmpi::progress_thread_wanted()) required = MPI_THREAD_MULTIPLE;
    const int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        gridcoll::pmpi::start(*provided);
        gridcoll::pmpi::start_progress_thread(*provided);
    }
    return rc;
}

GRIDCOLL_EXPORT int MPI_Finalize() {
    gridcoll::pmpi::stop_progress_thread();
    gridcoll::pmpi::stop();
    return PMPI_Finalize();
}

// On a time-dilated testbed (GRIDCOLL_DILATION=K) the program's clock runs K times slower, so
// it measures the undilated platform; the same clock gridcoll's own measurements use.
GRIDCOLL_EXPORT double MPI_Wtime() { return gridcoll::mpi::undilated_wtime(); }
GRIDCOLL_EXPORT double MPI_Wtick() { return PMPI_Wtick() / gridcoll::mpi::time_dilation(); }

GRIDCOLL_EXPORT int MPI_Barrier(MPI_Comm comm) { return gridcoll::pmpi::barrier(comm); }

GRIDCOLL_EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    return gridcoll::pmpi::bcast(buf, count, type, root, comm);
}

GRIDCOLL_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                               MPI_Comm comm) {
    return gridcoll::pmpi::reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

GRIDCOLL_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                  MPI_Comm comm) {
    return gridcoll::pmpi::allreduce(sendbuf, recvbuf, count, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    return gridcoll::pmpi::scan(sendbuf, recvbuf, count, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gridcoll::pmpi::scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

GRIDCOLL_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gridcoll::pmpi::gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

GRIDCOLL_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return gridcoll::pmpi::allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

GRIDCOLL_EXPORT int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    return gridcoll::pmpi::exscan(sendbuf, recvbuf, count, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                                             MPI_Op op, MPI_Comm comm) {
    return gridcoll::pmpi::reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                                       MPI_Op op, MPI_Comm comm) {
    return gridcoll::pmpi::reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

GRIDCOLL_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
    return gridcoll::pmpi::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

GRIDCOLL_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gridcoll::pmpi::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

GRIDCOLL_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return gridcoll::pmpi::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

GRIDCOLL_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                  MPI_Comm comm) {
    return gridcoll::pmpi::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

GRIDCOLL_EXPORT int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return gridcoll::pmpi::alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

GRIDCOLL_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return gridcoll::pmpi::alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
