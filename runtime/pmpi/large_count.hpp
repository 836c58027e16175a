// MPI 4's large-count collectives (MPI_Bcast_c ... MPI_Reduce_scatter_init_c: MPI_Count counts;
// mpi4py 4 calls them for every size where the MPI library has them, and MPICH's mpi_f08
// bindings for counts of kind MPI_COUNT_KIND). Where each block's bytes fit in an int, the call
// is its int form, and the library runs it as it runs that one (the method chosen alike, MPI's
// own where it would be); else it is the MPI library's own _c call, untouched. Every rank of a
// collective takes the same form, since the choice depends only on what they agree on. The
// v-variants and alltoallw are the exception: never narrowed, their _c forms run on their own
// arrays (intercept_large_count_irregular.cpp).
// Defined where the MPI library has them (GRIDCOLL_LARGE_COUNT: MPICH 4; not Open MPI 4.1, nor
// SimGrid's SMPI); intercept_large_count*.cpp has the entry points.
//
// An int form's count array is a copy made for the call. A non-blocking reduce-scatter the
// library hands to MPI must not leave MPI reading a copy that dies with the call: there
// (NativeCall) MPI's own _c call is started with the program's array instead of the int form.
#pragma once

#include <mpi.h>

#include <climits>
#include <functional>
#include <optional>
#include <vector>

#if MPI_VERSION >= 4 && !defined(GRIDCOLL_SMPI)
#define GRIDCOLL_LARGE_COUNT 1
#endif

namespace gridcoll::pmpi::large_count {

#ifdef GRIDCOLL_LARGE_COUNT
// The int count that stands for `count` elements of `type` on communicator `comm` in the call's
// int form, decided by the block's bytes (which every rank of a collective agrees on, whatever
// its datatype), so that every rank takes the same form: the count where the bytes fit in an
// int; a count of no bytes as it is where it fits, else 0; a count of 0 whatever the datatype.
// -1 where they do not fit, on an intercommunicator (the library leaves those to MPI), for
// MPI_COMM_NULL, a negative count or a null datatype with elements (MPI's own call reports those).
int int_count(MPI_Comm comm, long long count, MPI_Datatype type);

// The ints that stand for the counts of elements of `type` at the ranks of `comm` (int_count
// each); none where one does not fit, `counts` is null, or as int_count says.
std::optional<std::vector<int>> int_counts(MPI_Comm comm, const MPI_Count* counts, MPI_Datatype type);

// The send and receive counts of a scatter, gather, allgather or all-to-all in the int form,
// decided by the block every rank agrees on (int_count); the other count, where significant on
// this rank, must fit as well (else the call is erroneous: MPI's own reports it), and where MPI
// ignores it (MPI_IN_PLACE, a non-root's) any value will do. ok false: MPI's own _c call.
struct CountPair {
    int send = 0, recv = 0;
    bool ok = false;
};
CountPair scatter_counts(MPI_Comm comm, int root, const void* recvbuf, long long sendcount, MPI_Datatype sendtype,
                         long long recvcount, MPI_Datatype recvtype);
CountPair gather_counts(MPI_Comm comm, int root, const void* sendbuf, long long sendcount, MPI_Datatype sendtype,
                        long long recvcount, MPI_Datatype recvtype);
CountPair every_rank_counts(MPI_Comm comm, const void* sendbuf, long long sendcount, MPI_Datatype sendtype,
                            long long recvcount, MPI_Datatype recvtype);  // allgather, all-to-all
#endif

// While alive, the collectives this thread runs are a large-count call's (or a persistent one's
// start): the library's log names them by their _c forms (MPI_Bcast_c, MPI_Ibcast_c).
class CForm {
public:
    CForm();
    ~CForm();
    CForm(const CForm&) = delete;
    CForm& operator=(const CForm&) = delete;

private:
    bool outer_;
};
bool in_c_form();

// While alive, a non-blocking collective this thread hands to the MPI library starts `own` (the
// MPI library's own _c call with the program's arrays) in place of its int form
// (persistent::native_nonblocking asks native_call()).
class NativeCall {
public:
    explicit NativeCall(std::function<int(MPI_Request*)> own);
    ~NativeCall();
    NativeCall(const NativeCall&) = delete;
    NativeCall& operator=(const NativeCall&) = delete;

private:
    std::function<int(MPI_Request*)> own_;
    const std::function<int(MPI_Request*)>* outer_;
};
const std::function<int(MPI_Request*)>* native_call();

}  // namespace gridcoll::pmpi::large_count
