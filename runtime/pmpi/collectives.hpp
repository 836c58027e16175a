// The intercepted collectives (the nine here, exscan; the irregular ones in irregular.cpp): each takes the MPI call's arguments, asks the
// communicator's state for the method (choice.hpp), and either calls the MPI library's own
// (PMPI_*) or runs gridcoll's schedule on the application's buffers — in place where the data
// is contiguous, through packed scratch buffers where a datatype has gaps, with MPI_IN_PLACE
// inputs copied aside first (gridcoll's schedules never write the input buffer, and may read it
// after writing the output). Reductions apply the application's operation with
// MPI_Reduce_local, so every predefined and user-defined operation and type works, in rank
// order for non-commutative ones. Buffers follow gridcoll/collective.hpp's layout, which is
// MPI's for contiguous data.
//
// An error inside gridcoll's path (a failed MPI call under the executor) is printed and the job
// aborted: never a wrong answer, never a hang.
#pragma once

#include <mpi.h>

namespace gridcoll::pmpi {

int barrier(MPI_Comm comm);
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm);
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm);
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm);
int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

// irregular.cpp
int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
               const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
            const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

}  // namespace gridcoll::pmpi
