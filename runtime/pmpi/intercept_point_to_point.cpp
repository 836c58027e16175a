// The blocking point-to-point calls, watched so that they advance gridcoll's pending
// non-blocking collectives (MPI's progress rule): a rank waiting in MPI_Recv for a rank that
// waits for a collective this rank must forward would otherwise hang where there is no progress
// thread (progress=calls, an MPI without MPI_THREAD_MULTIPLE, SMPI). With nothing pending, or
// from inside the library, each is the MPI library's own call; with something pending, it is
// made of the non-blocking call and a wait that advances the pending operations
// (wait_point_to_point: testing in turn; under SMPI, one MPI_Waitany over their messages and
// this one), and MPI_Probe of MPI_Iprobe and advancing in turn. Blocking and non-blocking
// point-to-point calls match each other, so ranks need not agree on which form they use.
#include <mpi.h>

#include "comm_state.hpp"
#include "handed_requests.hpp"
#include "nonblocking.hpp"
#include "point_to_point.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using gridcoll::pmpi::engine;
using gridcoll::pmpi::mpi_alone;
using gridcoll::pmpi::wait_point_to_point;

// A send of the blocking form `Blocking`, or of its non-blocking form `Start` when something is
// pending.
template <class Blocking, class Start>
int send_like(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, Blocking blocking,
              Start start) {
    if (mpi_alone()) return blocking(buf, count, type, dest, tag, comm);
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = start(buf, count, type, dest, tag, comm, &request);
    return rc != MPI_SUCCESS ? rc : wait_point_to_point(&request, MPI_STATUS_IGNORE);
}

// MPI_Sendrecv of non-blocking calls: the receive's status is the call's.
int sendrecv_advancing(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                       MPI_Status* status) {
    MPI_Request received = MPI_REQUEST_NULL, sent = MPI_REQUEST_NULL;
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &received);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sent);
    if (rc != MPI_SUCCESS) {  // (an error handler that returns) the receive is withdrawn
        PMPI_Cancel(&received);
        PMPI_Request_free(&received);
        return rc;
    }
    rc = wait_point_to_point(&received, status);
    const int send_rc = wait_point_to_point(&sent, MPI_STATUS_IGNORE);
    return rc != MPI_SUCCESS ? rc : send_rc;
}

}  // namespace

GRIDCOLL_EXPORT int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return send_like(buf, count, type, dest, tag, comm, PMPI_Send, PMPI_Isend);
}

GRIDCOLL_EXPORT int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return send_like(buf, count, type, dest, tag, comm, PMPI_Ssend, PMPI_Issend);
}

GRIDCOLL_EXPORT int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return send_like(buf, count, type, dest, tag, comm, PMPI_Bsend, PMPI_Ibsend);
}

GRIDCOLL_EXPORT int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return send_like(buf, count, type, dest, tag, comm, PMPI_Rsend, PMPI_Irsend);
}

GRIDCOLL_EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                             MPI_Status* status) {
    if (mpi_alone()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &request);
    return rc != MPI_SUCCESS ? rc : wait_point_to_point(&request, status);
}

GRIDCOLL_EXPORT int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                                 MPI_Comm comm, MPI_Status* status) {
    if (mpi_alone())
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                             comm, status);
    return sendrecv_advancing(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                              recvtag, comm, status);
}

// The message sent from a copy of the buffer, so that the reply can be received into it.
GRIDCOLL_EXPORT int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                                         int recvtag, MPI_Comm comm, MPI_Status* status) {
    if (mpi_alone()) return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
    const gridcoll::pmpi::BufferCopy copy = gridcoll::pmpi::copy_of(buf, count, type);
    return sendrecv_advancing(copy.at, count, type, dest, sendtag, buf, count, type, source, recvtag, comm, status);
}

GRIDCOLL_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    // (Under SMPI each failed MPI_Iprobe costs simulated time, as SimGrid's own MPI_Probe's do.)
    while (!mpi_alone()) {
        engine().progress();
        int found = 0;
        const int rc = PMPI_Iprobe(source, tag, comm, &found, status);
        if (rc != MPI_SUCCESS || found) return rc;
    }
    return PMPI_Probe(source, tag, comm, status);  // nothing pending any more
}

#ifndef GRIDCOLL_SMPI  // SimGrid 3.32 implements neither MPI_Mprobe nor MPI_Improbe (it aborts)
GRIDCOLL_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
    while (!mpi_alone()) {
        engine().progress();
        int found = 0;
        const int rc = PMPI_Improbe(source, tag, comm, &found, message, status);
        if (rc != MPI_SUCCESS || found) return rc;
    }
    return PMPI_Mprobe(source, tag, comm, message, status);  // nothing pending any more
}

GRIDCOLL_EXPORT int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
    if (mpi_alone()) return PMPI_Mrecv(buf, count, type, message, status);
    MPI_Request request = MPI_REQUEST_NULL;
    const int rc = PMPI_Imrecv(buf, count, type, message, &request);
    return rc != MPI_SUCCESS ? rc : wait_point_to_point(&request, status);
}
#endif

#ifdef GRIDCOLL_SMPI
// Under SMPI the program's point-to-point requests are kept (handed_requests.hpp), so that its
// waits over them while gridcoll's operations are pending can block in MPI instead of testing
// (wait_all_known and its kin, blocking_wait.cpp).
namespace {

int kept(int rc, const MPI_Request* request) {
    if (rc == MPI_SUCCESS && request && !gridcoll::pmpi::inside()) gridcoll::pmpi::note_point_to_point(*request);
    return rc;
}

}  // namespace

GRIDCOLL_EXPORT int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                              MPI_Request* request) {
    return kept(PMPI_Isend(buf, count, type, dest, tag, comm, request), request);
}

GRIDCOLL_EXPORT int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
    return kept(PMPI_Issend(buf, count, type, dest, tag, comm, request), request);
}

GRIDCOLL_EXPORT int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
    return kept(PMPI_Ibsend(buf, count, type, dest, tag, comm, request), request);
}

GRIDCOLL_EXPORT int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
    return kept(PMPI_Irsend(buf, count, type, dest, tag, comm, request), request);
}

GRIDCOLL_EXPORT int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                              MPI_Request* request) {
    return kept(PMPI_Irecv(buf, count, type, source, tag, comm, request), request);
}
#endif
