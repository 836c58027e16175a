// The parts every intercepted collective is made of (collectives.cpp, irregular.cpp,
// nonblocking.cpp): running gridcoll's path guarded (an error aborts the job, never a wrong
// answer), executing a chosen schedule, the application's reduction operation as the executor's
// reducer, and the application's buffers as contiguous bytes (in place, or packed into the
// communicator's scratch buffers and unpacked after).
#pragma once

#include <mpi.h>

#include <functional>

#include <cstdint>
#include <string>

#include "comm_state.hpp"
#include "layout.hpp"

namespace gridcoll::pmpi {

enum Scratch : int { kIn = 0, kOut = 1, kInCopy = 2, kTmp = 3 };

// Runs `body` (which returns false when the ranks agreed to hand the call to MPI) with nested MPI
// calls going straight to MPI; an exception aborts the job with its message.
template <class Body>
bool guarded(MPI_Comm comm, const char* name, Body&& body) {
    inside() = true;
    bool done = false;
    try {
        done = body();
    } catch (const std::exception& e) {
        log(std::string(name) + ": " + e.what());
        stop_job(comm, 3);
    }
    inside() = false;
    return done;
}

// The schedule of the call with buffers `b` (tmp added here); false when it cannot run. With
// `nb` the schedule is started and handed to the progress engine (nonblocking.hpp).
bool execute(CommState& cs, const CallShape& call, const Choice& ch, int root, Buffers b, const ReduceFn* reduce,
             MPI_Request* nb = nullptr);

// Whether an operation commutes (every predefined one does; MPI is asked about the others).
bool commutes(MPI_Op op);

// A send buffer that is (or overlaps at this rank's block) the receive buffer is erroneous in
// MPI (MPI_IN_PLACE is its way). Where the MPI library beneath reports it, at once and without
// communicating, through the communicator's error handler, so does the library: MPICH 4 in every
// collective (kMpiChecksEveryAlias; the callers test its conditions: the same type and count,
// the send buffer at the rank's block of the receive buffer for the gathers, the other way round
// for the scatters), Open MPI 4.1 in MPI_Allreduce of more than one element (and MPI_Reduce at
// the root, but there its other ranks' sends complete and the program goes on; gridcoll's would
// wait for the root, so the library computes instead). aliased(checked, a, b, ...) is true when `checked` and a is b: *rc = MPI_ERR_BUFFER, a
// pending request left null; as with those libraries, the call did not happen at this rank (a
// program may post a correct one to meet the other ranks': MPICH's tests do). Elsewhere MPI
// computes on, and so does gridcoll, on a copy of the input (reduction_input, the all-to-alls).
#ifdef MPICH_VERSION
inline constexpr bool kMpiChecksEveryAlias = true;
#else
inline constexpr bool kMpiChecksEveryAlias = false;
#endif
bool aliased(bool checked, const void* a, const void* b, MPI_Comm comm, const char* name, MPI_Request* nb, int* rc);
// `buf` + `blocks` elements of `type` (its size, not extent, as MPICH's check counts).
const void* block_at(const void* buf, MPI_Aint blocks, MPI_Datatype type);

// Reduction steps by MPI_Reduce_local: inoutbuf = inbuf op inoutbuf. dst op src (Order::DstLeft)
// of a non-commutative operation goes through a copy of src.
ReduceFn reducer(CommState& cs, MPI_Datatype type, MPI_Op op, std::uint64_t elem, bool commutative);

// The input of a reduction: the send buffer, or with MPI_IN_PLACE (or a send buffer that is the
// receive buffer) a copy of the receive buffer.
const std::byte* reduction_input(CommState& cs, const void* sendbuf, const void* recvbuf, const Layout& l);

MPI_Aint extent_of(MPI_Datatype t);

// `count` elements of `type` at `buf` as `bytes` contiguous bytes: in place, or packed into
// scratch `which`.
const std::byte* contiguous_input(CommState& cs, int which, const void* buf, long long count, MPI_Datatype type,
                                  std::uint64_t bytes, MPI_Comm comm);

// Where the output lands: in place, or in scratch kOut, unpacked by finish_output.
struct Output {
    std::byte* data = nullptr;
    bool packed = false;
};
Output output_of(CommState& cs, void* buf, long long count, MPI_Datatype type, std::uint64_t bytes);
// Unpacks a packed output now, or when the non-blocking call being made completes.
void finish_output(const Output& o, std::uint64_t bytes, void* buf, long long count, MPI_Datatype type, MPI_Comm comm);

// `unpack` with `type` now in a blocking call; in a non-blocking one, when it completes, with the
// operation's own copy of `type` (a contiguous type of one `type`): MPICH's mpi_f08 bindings free the datatype they make for
// an array section (by PMPI_Type_free, past the library's deferred free, handles.hpp) as soon as
// the call returns.
void unpack_at_completion(std::function<void(MPI_Datatype)> unpack, MPI_Datatype type);

}  // namespace gridcoll::pmpi
