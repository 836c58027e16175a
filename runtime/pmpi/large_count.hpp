// MPI 4's large-count collectives (MPI_Bcast_c ... MPI_Reduce_scatter_init_c: MPI_Count counts;
// mpi4py 4 calls them for every size where the MPI library has them). Where the call's bytes fit
// in an int, it is its int form, and the library runs it as it runs that one (the method chosen
// alike, MPI's own where it would be); else it is the MPI library's own _c call, untouched. Every
// rank of a collective takes the same form, since the choice depends only on what they agree on.
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
inline bool fits(long long count) { return count >= 0 && count <= INT_MAX; }

// The int count that stands for `count` elements of `type` in the call's int form: decided by the
// bytes (which every rank of a collective agrees on, whatever its datatype), so that every rank
// takes the same form: the count where they fit in an int, 0 for a datatype of no bytes; -1
// where they do not fit (or the datatype is not valid: the MPI library's own call reports that).
int int_count(long long count, MPI_Datatype type);
// A count MPI ignores on this rank (a root's with MPI_IN_PLACE, a non-root's send count): any
// value that fits, else 0.
inline int narrow(long long count) { return fits(count) ? static_cast<int>(count) : 0; }

// The ints that stand for the counts of elements of `type` at the ranks of `comm` (int_count
// each); none where one does not fit, or on an intercommunicator or MPI_COMM_NULL (there the MPI
// library's own call runs).
std::optional<std::vector<int>> int_counts(const MPI_Count* counts, MPI_Datatype type, MPI_Comm comm);

// Whether this rank reads a rooted collective's per-rank arrays (the root; MPI_ROOT on an
// intercommunicator).
bool is_root(MPI_Comm comm, int root);
#endif

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
