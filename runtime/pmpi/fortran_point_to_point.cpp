// The Fortran blocking point-to-point calls on Open MPI and SMPI (fortran.hpp), watched as the C
// ones are (intercept_point_to_point.cpp): with nothing of gridcoll's pending, the MPI library's
// own Fortran entry point; with something pending, its non-blocking form and the library's
// Fortran wait, which advances the pending operations by testing (MPI's progress rule), so that
// a Fortran program without the progress thread (SMPI, progress=calls) cannot hang in MPI_Recv
// waiting for a rank that waits for a collective this rank must forward. Unlike the C calls they
// test under SMPI too (SimGrid charges each failed test simulated time: blocking_wait.cpp).
// MPI_Mprobe is left to MPI (SimGrid 3.32 has none; Open MPI has the progress thread by default).
#include "fortran.hpp"
#include "nonblocking.hpp"
#include "point_to_point.hpp"

#include <type_traits>

using namespace gridcoll::pmpi::fortran;
using gridcoll::pmpi::engine;
using gridcoll::pmpi::mpi_alone;

namespace {

// A status the program does not see (a send's, waited for by the library): larger than any
// MPI library's Fortran status.
struct ScratchStatus {
    F ints[32] = {};
};

using NativeSend = void(void* buf, F* count, F* type, F* dest, F* tag, F* comm, F* ierr);
using NativeStart = void(void* buf, F* count, F* type, F* peer, F* tag, F* comm, F* request, F* ierr);

// The MPI library's own entry point NAME of type Fn, looked up once per call site (`static`).
#define GRIDCOLL_NATIVE(Fn, name)                                                        \
    []() -> std::add_pointer_t<Fn> {                                                     \
        static const std::add_pointer_t<Fn> f = next_as<Fn>(GRIDCOLL_NATIVE_FORTRAN(name)); \
        return f;                                                                        \
    }()

// A send: the native blocking call `blocking`, or its non-blocking form `start` and the wait.
void send_like(NativeSend* blocking, NativeStart* start, void* buf, F* count, F* type, F* dest, F* tag, F* comm,
               F* ierr) {
    if (mpi_alone()) return blocking(buf, count, type, dest, tag, comm, ierr);
    F request = 0, rc = MPI_SUCCESS;
    start(buf, count, type, dest, tag, comm, &request, &rc);
    if (rc != MPI_SUCCESS) return set_error(ierr, rc);
    ScratchStatus status;
    wait(native_completion_calls(), &request, status.ints, ierr);
}

// MPI_Sendrecv of the native non-blocking calls; the receive's status is the call's.
void sendrecv_advancing(void* sendbuf, F* sendcount, F* sendtype, F* dest, F* sendtag, void* recvbuf, F* recvcount,
                        F* recvtype, F* source, F* recvtag, F* comm, F* status, F* ierr) {
    F received = 0, sent = 0, rc = MPI_SUCCESS;
    GRIDCOLL_NATIVE(NativeStart, irecv)(recvbuf, recvcount, recvtype, source, recvtag, comm, &received, &rc);
    if (rc != MPI_SUCCESS) return set_error(ierr, rc);
    GRIDCOLL_NATIVE(NativeStart, isend)(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sent, &rc);
    if (rc != MPI_SUCCESS) {  // (an error handler that returns) the receive is withdrawn
        F ignored = MPI_SUCCESS;
        GRIDCOLL_NATIVE(void(F*, F*), cancel)(&received, &ignored);
        GRIDCOLL_NATIVE(void(F*, F*), request_free)(&received, &ignored);
        return set_error(ierr, rc);
    }
    wait(native_completion_calls(), &received, status, &rc);
    ScratchStatus scratch;
    F send_rc = MPI_SUCCESS;
    wait(native_completion_calls(), &sent, scratch.ints, &send_rc);
    set_error(ierr, rc != MPI_SUCCESS ? rc : send_rc);
}

}  // namespace

GRIDCOLL_FORTRAN(void, mpi_send, MPI_SEND, ompi_send_f, void* buf, F* count, F* type, F* dest, F* tag, F* comm,
                 F* ierr) {
    send_like(GRIDCOLL_NATIVE(NativeSend, send), GRIDCOLL_NATIVE(NativeStart, isend), buf, count, type, dest, tag, comm,
              ierr);
}

GRIDCOLL_FORTRAN(void, mpi_ssend, MPI_SSEND, ompi_ssend_f, void* buf, F* count, F* type, F* dest, F* tag, F* comm,
                 F* ierr) {
    send_like(GRIDCOLL_NATIVE(NativeSend, ssend), GRIDCOLL_NATIVE(NativeStart, issend), buf, count, type, dest, tag, comm,
              ierr);
}

GRIDCOLL_FORTRAN(void, mpi_bsend, MPI_BSEND, ompi_bsend_f, void* buf, F* count, F* type, F* dest, F* tag, F* comm,
                 F* ierr) {
    send_like(GRIDCOLL_NATIVE(NativeSend, bsend), GRIDCOLL_NATIVE(NativeStart, ibsend), buf, count, type, dest, tag, comm,
              ierr);
}

GRIDCOLL_FORTRAN(void, mpi_rsend, MPI_RSEND, ompi_rsend_f, void* buf, F* count, F* type, F* dest, F* tag, F* comm,
                 F* ierr) {
    send_like(GRIDCOLL_NATIVE(NativeSend, rsend), GRIDCOLL_NATIVE(NativeStart, irsend), buf, count, type, dest, tag, comm,
              ierr);
}

GRIDCOLL_FORTRAN(void, mpi_recv, MPI_RECV, ompi_recv_f, void* buf, F* count, F* type, F* source, F* tag, F* comm,
                 F* status, F* ierr) {
    using NativeRecv = void(void*, F*, F*, F*, F*, F*, F*, F*);
    if (mpi_alone())
        return GRIDCOLL_NATIVE(NativeRecv, recv)(buf, count, type, source, tag, comm, status, ierr);
    F request = 0, rc = MPI_SUCCESS;
    GRIDCOLL_NATIVE(NativeStart, irecv)(buf, count, type, source, tag, comm, &request, &rc);
    if (rc != MPI_SUCCESS) return set_error(ierr, rc);
    wait(native_completion_calls(), &request, status, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_sendrecv, MPI_SENDRECV, ompi_sendrecv_f, void* sendbuf, F* sendcount, F* sendtype, F* dest,
                 F* sendtag, void* recvbuf, F* recvcount, F* recvtype, F* source, F* recvtag, F* comm, F* status,
                 F* ierr) {
    using NativeSendrecv = void(void*, F*, F*, F*, F*, void*, F*, F*, F*, F*, F*, F*, F*);
    if (mpi_alone())
        return GRIDCOLL_NATIVE(NativeSendrecv, sendrecv)(
            sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status,
            ierr);
    sendrecv_advancing(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                       status, ierr);
}

// The message sent from a copy of the buffer (the Fortran MPI_BOTTOM as C's, so that the copy
// holds the bytes the datatype's absolute addresses name), the reply received into it.
GRIDCOLL_FORTRAN(void, mpi_sendrecv_replace, MPI_SENDRECV_REPLACE, ompi_sendrecv_replace_f, void* buf, F* count,
                 F* type, F* dest, F* sendtag, F* source, F* recvtag, F* comm, F* status, F* ierr) {
    using NativeReplace = void(void*, F*, F*, F*, F*, F*, F*, F*, F*, F*);
    if (mpi_alone())
        return GRIDCOLL_NATIVE(NativeReplace, sendrecv_replace)(buf, count, type, dest, sendtag, source, recvtag, comm,
                                                                 status, ierr);
    const gridcoll::pmpi::BufferCopy copy = gridcoll::pmpi::copy_of(buffer(buf), *count, PMPI_Type_f2c(*type));
    sendrecv_advancing(copy.at, count, type, dest, sendtag, buf, count, type, source, recvtag, comm, status, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_probe, MPI_PROBE, ompi_probe_f, F* source, F* tag, F* comm, F* status, F* ierr) {
    using NativeProbe = void(F*, F*, F*, F*, F*);
    using NativeIprobe = void(F*, F*, F*, F*, F*, F*);
    while (!mpi_alone()) {
        engine().progress();
        F found = 0, rc = MPI_SUCCESS;
        GRIDCOLL_NATIVE(NativeIprobe, iprobe)(source, tag, comm, &found, status, &rc);
        if (rc != MPI_SUCCESS || found) return set_error(ierr, rc);
    }
    GRIDCOLL_NATIVE(NativeProbe, probe)(source, tag, comm, status, ierr);  // nothing pending any more
}
