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
// With `nb` (the program's request of an MPI_I... call) the call does not complete here: a
// gridcoll schedule is started and left to the progress engine (nonblocking.hpp), the MPI
// library's own method is its non-blocking form.
//
// An error inside gridcoll's path (a failed MPI call under the executor) is printed and the job
// aborted: never a wrong answer, never a hang.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "count_array.hpp"

namespace gridcoll::pmpi {

int barrier(MPI_Comm comm, MPI_Request* nb = nullptr);
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* nb = nullptr);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request* nb = nullptr);
int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb = nullptr);
int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb = nullptr);
int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb = nullptr);
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb = nullptr);
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb = nullptr);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb = nullptr);
int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb = nullptr);

// irregular.cpp
int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb = nullptr);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb = nullptr);
int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
               const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb = nullptr);
int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
            const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb = nullptr);
int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb = nullptr);
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb = nullptr);
// MPI_Alltoallw: alltoallv's methods on the blocks' bytes, each block packed and unpacked by its
// own datatype (displacements in bytes); logged as MPI_Alltoallw, forced as alltoallv.
int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
              void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request* nb = nullptr);
// The datatypes a non-blocking or persistent alltoallw holds (handles.hpp): its receive types and,
// unless MPI_IN_PLACE, its send types (one per rank of the communicator, or of its remote group).
std::vector<MPI_Datatype> alltoallw_types(const void* sendbuf, const MPI_Datatype sendtypes[],
                                          const MPI_Datatype recvtypes[], MPI_Comm comm);
// A persistent alltoallw's datatype arrays, copied at its init call as MPI's own captures them
// there (the program may free its handles, or reuse its arrays, while the request lives).
class KeptTypes {
public:
    KeptTypes(const void* sendbuf, const MPI_Datatype sendtypes[], const MPI_Datatype recvtypes[], MPI_Comm comm)
        : all_(std::make_shared<const std::vector<MPI_Datatype>>(alltoallw_types(sendbuf, sendtypes, recvtypes, comm))),
          in_place_(sendbuf == MPI_IN_PLACE) {}
    const std::vector<MPI_Datatype>& all() const { return *all_; }  // to hold (handles.hpp)
    const MPI_Datatype* recv() const { return all_->data(); }
    const MPI_Datatype* send() const { return in_place_ ? nullptr : all_->data() + all_->size() / 2; }

private:
    std::shared_ptr<const std::vector<MPI_Datatype>> all_;  // alltoallw_types' list
    bool in_place_;
};


// The v-variants for any form of the call: the int forms above, and the large-count ones
// (MPI_Count counts, MPI_Aint displacements; intercept_large_count_irregular.cpp). `mpi_own` is the
// MPI library's own form of the call, where the library hands it over: blocking with a null
// request, else started on it.
using OwnCall = std::function<int(MPI_Request*)>;
int allgatherv(const void* sendbuf, long long sendcount, MPI_Datatype sendtype, void* recvbuf, Ints recvcounts,
               Ints displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own);
int gatherv(const void* sendbuf, long long sendcount, MPI_Datatype sendtype, void* recvbuf, Ints recvcounts,
            Ints displs, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own);
int scatterv(const void* sendbuf, Ints sendcounts, Ints displs, MPI_Datatype sendtype, void* recvbuf,
             long long recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own);
int alltoallv(const void* sendbuf, Ints sendcounts, Ints sdispls, MPI_Datatype sendtype, void* recvbuf,
              Ints recvcounts, Ints rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own);
int alltoallw(const void* sendbuf, Ints sendcounts, Ints sdispls, const MPI_Datatype sendtypes[], void* recvbuf,
              Ints recvcounts, Ints rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* nb,
              const OwnCall& mpi_own);

}  // namespace gridcoll::pmpi
