// The non-blocking collectives' requests the library has handed to the program, under SMPI.
// SimGrid 3.32's own MPI_Waitany, MPI_Waitsome, MPI_Testany and MPI_Testsome mishandle a
// generalized request (what the library hands out): they take it for complete at once and leave
// it active (it carries SimGrid's persistent flag), or say no request is active at all. While
// gridcoll has operations pending those calls wait in Engine::wait_one and test only complete
// requests, or are made of MPI_Test on each request (intercept_nonblocking.cpp,
// blocking_wait.cpp); with none pending they are SimGrid's own, so every handed-out
// request is complete then, and the library completes such a request itself (one MPI_Test)
// before it leaves the rest to SimGrid. Kept until a completion call is seen to free it; a
// request freed unseen (MPI_Request_free) stays until its handle next meets one of those calls,
// which then tests it once. Elsewhere (Open MPI, MPICH) nothing is kept and nothing changes.
#pragma once

#include <mpi.h>

#include <vector>

namespace gridcoll::pmpi {

// A generalized request the library hands to the program.
void hand_out(MPI_Request request);
// Whether any request is kept at all (never outside SMPI): the checks below are free when not.
bool any_handed_out();
// Whether `request` is one still handed out, and taking it back (the program freed it).
bool handed(MPI_Request request);
void take_back(MPI_Request request);
// The first handed-out request among `reqs`, tested (MPI_Test: it is complete, and so freed),
// its status in `status`: its index, or MPI_UNDEFINED when there is none. Each one tested is
// taken back whatever the test said.
int complete_handed_one(int n, MPI_Request reqs[], MPI_Status* status);
// Every handed-out request among `reqs` the same way: how many completed, their indices and
// statuses (MPI_STATUSES_IGNORE or one a completed request) in order.
int complete_handed_some(int n, MPI_Request reqs[], int indices[], MPI_Status statuses[]);

// The program's own point-to-point requests (MPI_Isend, _Issend, _Ibsend, _Irsend, MPI_Irecv), kept
// the same way under SMPI only, so that a wait over them and the library's requests can block in
// MPI_Waitany (blocking_wait.cpp): SimGrid's MPI_Waitany takes the requests of its own non-blocking
// collectives, and generalized ones, for complete at once, so only requests known to be neither
// may go into it. take_back forgets either kind.
// A handle is kept as one kind at a time: handing a request out, or noting a point-to-point one,
// forgets it as the other kind (a stale entry whose handle MPI reused).
void note_point_to_point(MPI_Request request);
bool point_to_point(MPI_Request request);
// A handle MPI gave for something else (a collective's request): no longer a point-to-point one.
void forget_point_to_point(MPI_Request request);

// MPI's own MPI_Waitall and MPI_Testall (nothing of gridcoll's pending for the wait), the
// handed-out requests among `reqs` kept from SimGrid's: beside other requests its MPI_Waitall left
// a complete one active (MPICH's coll/nonblocking3). Under SMPI the wait tests them first (each
// is complete) and puts their statuses back after MPI's; the test says not yet while one is still
// pending, and tests them only once MPI's MPI_Testall over the others said all were complete.
// Elsewhere MPI's own calls.
int waitall_keeping_handed(int n, MPI_Request reqs[], MPI_Status statuses[]);
int testall_keeping_handed(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]);

// Around a completion call: the handed-out and point-to-point requests among `reqs` that the
// call freed (their slot MPI_REQUEST_NULL afterwards) are taken back.
class HandedBack {
public:
    HandedBack(int n, const MPI_Request* reqs);
    ~HandedBack();
    HandedBack(const HandedBack&) = delete;
    HandedBack& operator=(const HandedBack&) = delete;

    // Whether any of the requests was handed out (or is a point-to-point one kept).
    bool any() const { return !watched_.empty(); }

private:
    const MPI_Request* reqs_;
    std::vector<std::pair<int, MPI_Request>> watched_;
};

}  // namespace gridcoll::pmpi
