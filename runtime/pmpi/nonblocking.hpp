// The progress engine of the PMPI library's non-blocking collectives. An MPI_I... call that
// gridcoll takes runs the same code as the blocking call with its request given (collectives.hpp):
// its scratch buffers come from the operation's own arena (the communicator's are reused by the
// next call), the chosen schedule is started — its first sends and receives posted — and the
// program gets a generalized request (MPI_Grequest_start), a real MPI_Request it can mix with
// its own point-to-point requests. The schedule advances whenever the program enters the
// library: MPI_Test, MPI_Wait and their -all, -any and -some forms (intercepted: each advances
// every pending operation, then asks MPI about the program's requests), and every later
// intercepted collective. When a schedule is done, the results are unpacked where the call's
// datatypes had gaps and the request is completed (MPI_Grequest_complete). No thread is needed:
// between MPI calls the messages already posted move on their own, the next steps wait for the
// next call.
//
// Messages of different operations on one communicator never mix: every gridcoll operation on a
// communicator, blocking or not, gets the next tag of the communicator's sequence (all ranks call
// collectives in the same order, MPI's rule), so the k-th operation's messages carry the same
// tag everywhere; a persistent collective's starts, which need not be in order, the block its
// init call fixed (persistent.hpp).
#pragma once

#include <mpi.h>

#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gridcoll/runtime/executor.hpp"

namespace gridcoll::pmpi {

class CommState;

struct PendingOp {
    std::string name;                           // MPI_Iallreduce, ...: for errors
    MPI_Comm user = MPI_COMM_NULL;              // for MPI_Abort
    MPI_Request request = MPI_REQUEST_NULL;     // the generalized request the program holds
    std::vector<std::vector<std::byte>> arena;  // this operation's scratch buffers
    std::shared_ptr<const BuiltSchedule> plan;
    std::optional<ReduceFn> reduce;
    std::optional<ScheduleRun> run;
    MPI_Request watched = MPI_REQUEST_NULL;  // or an MPI persistent request started (Engine::watch)
    std::vector<std::function<void()>> on_complete;  // unpacking into the program's buffers
    std::vector<MPI_Datatype> types;                 // held while pending (handles.hpp)
    MPI_Op op = MPI_OP_NULL;

    std::byte* scratch(std::uint64_t bytes);
    bool started() const { return run.has_value() || watched != MPI_REQUEST_NULL; }
    bool advance();  // a persistent collective of MPI's own (no run): tested; true when done
};

// Shared by the program's threads: the pending list is locked; the operation a call is
// preparing is the calling thread's own.
class Engine {
public:
    // The operation this thread's MPI_I... call is preparing (nullptr in a blocking call).
    PendingOp* building() const { return building_.get(); }
    // Around the call: begin() makes the operation; end() hands it to the pending operations
    // (an inbox that progress() empties into its list) when a schedule was started (the
    // program's request is set), else drops it (the MPI library's own non-blocking call set
    // the request).
    // `types` and `op`: the call's datatypes and reduction, held while it is pending (handles.hpp).
    void begin(const char* name, MPI_Comm comm, std::vector<MPI_Datatype> types = {}, MPI_Op op = MPI_OP_NULL);
    void end();
    // Starts the building operation's schedule: called by execute() in place of a blocking run.
    void start(std::shared_ptr<const BuiltSchedule> plan, const Buffers& b, const ReduceFn* reduce, MPI_Comm traffic,
               int tag, MPI_Request* request);
    // A persistent collective whose method is the MPI library's own: `persistent`, MPI's own
    // persistent request for it, just started, is the building operation's work; the program's
    // request is a generalized one, completed when MPI's is.
    void watch(MPI_Request persistent, MPI_Request* request);
    // Advances every pending operation (one MPI_Testsome on all their schedules' messages; MPI's own
    // persistent collectives an MPI_Test each); completes finished ones.
    // Another thread already advancing them: returns at once.
    void progress();
    bool idle() const { return count_ == 0; }
    // Blocks in MPI (MPI_Waitany) until one message of a pending operation completes, or one of
    // `also` does (point-to-point requests, not generalized ones; null ones left out), and takes
    // the operation's message in as progress() would; completes the operation if that finished
    // it. With `foreground` (a blocking collective's run beside them), its messages too. 1 when
    // one of `also` completed (its slot MPI_REQUEST_NULL then, its index in `also_index`, its
    // status in `status`, MPI's error code for it in `also_error`), 2 when a foreground message
    // did (taken in), 0 when an operation's message did, -1 at once when nothing of the
    // operations' or the foreground's is in flight. For SMPI, which charges each failed MPI_Test
    // a growing simulated time (blocking_wait.cpp).
    int wait_one(std::span<MPI_Request> also, MPI_Status* status, ScheduleRun* foreground = nullptr,
                 int* also_error = nullptr, int* also_index = nullptr);
    // Whether `request` is the generalized request of an operation still pending.
    bool pending(MPI_Request request);
    // MPI_Finalize: waits for every pending operation (the program should have waited already).
    void drain();

private:
    void finish(PendingOp& op);  // unpacks, completes the request
    void test_in_flight();                           // (held) fills completions_
    bool hand_in(PendingOp& op, std::size_t& next);  // (held)
    [[noreturn]] void stop_on_failure(int rc, int outcount);  // (held)
    void take_in(PendingOp& op, std::size_t index, const MPI_Status& status);  // (held)
    // Removes a finished operation from pending_ (held) and lets its handles go.
    void retire(std::list<std::unique_ptr<PendingOp>>::iterator it);
    static thread_local std::unique_ptr<PendingOp> building_;
    std::mutex lock_;  // pending_, held while they advance
    std::mutex inbox_lock_;  // inbox_: operations started since, taken into pending_ by progress()
    std::list<std::unique_ptr<PendingOp>> inbox_;
    std::list<std::unique_ptr<PendingOp>> pending_;
    std::atomic<std::size_t> count_{0};
    // progress()'s one test over every operation's messages (held with lock_).
    struct InFlight {
        PendingOp* op;
        int index;  // among its run's requests
    };
    struct Completion {
        int position;  // in in_flight_
        PendingOp* op;
        int index;
        MPI_Status status;
    };
    std::vector<MPI_Request> in_flight_;
    std::vector<InFlight> owners_;
    std::vector<Completion> completions_;
    std::vector<int> indices_;
    std::vector<MPI_Status> statuses_;
};

Engine& engine();

// Nothing of gridcoll's is pending, or the library itself is calling: a wait or test is MPI's alone.
bool mpi_alone();

// Waits for `request`, one of the library's own MPI calls inside a collective it runs, advancing
// the pending operations meanwhile (a rank may join only once one of them is done); MPI_Wait
// itself while none is pending. Every rank posts the same non-blocking call, so they match.
void wait_advancing(MPI_Request* request);
// An allreduce of one int by MPI_MIN on `comm` (the library's own agreement), so waited for.
int agree_min(int value, MPI_Comm comm);

// Runs `f` now in a blocking call, or when the building non-blocking operation completes.
void when_complete(std::function<void()> f);

// Under SMPI: waits for the library's own point-to-point `request` (a blocking call made of its
// non-blocking form) while operations are pending, by Engine::wait_one; elsewhere by advancing
// and testing in turn.
int wait_point_to_point(MPI_Request* request, MPI_Status* status);
// One step of a blocking collective's `run` while operations are pending: under SMPI a wait
// (Engine::wait_one) for its next message or theirs; elsewhere a test of its messages and, if it
// is not done, the pending operations advanced.
void advance_beside(ScheduleRun& run);
// Under SMPI: when each active one of `reqs` is a request the library handed out, waits by
// Engine::wait_one until none of them is a pending operation's; true when nothing is pending
// then (MPI's own wait may finish the call). Else, and elsewhere, false: the caller tests.
bool wait_handed(int n, const MPI_Request reqs[]);
// Under SMPI, for Fortran's MPI_Waitany / MPI_Waitsome: when each active one of `reqs` is a request the
// library handed out, waits the same way until one of them is no longer a pending operation's,
// and says true: next_complete_handed then finds the complete ones, which the caller tests. Only
// those: SimGrid 3.32 charges each test, before it, 0.1 ms times a count that every failed test
// of any rank raises by one and a successful one resets, so testing the requests still pending
// as well (a wait made of MPI_Testany) took two non-blocking broadcasts of 4 MiB waited for by
// MPI_Waitany 8.6 times as long as one blocking one, 1.13 times after the blocking wait alone.
// Else, and elsewhere, false at once: the caller tests.
bool wait_handed_any(int n, const MPI_Request reqs[]);
// The index of the first request from `from` on that the library handed out and that is no
// longer a pending operation's (complete), or -1.
int next_complete_handed(int n, const MPI_Request reqs[], int from);
// Under SMPI, MPI_Waitall / MPI_Waitany / MPI_Waitsome while operations are pending, when each
// active one of `reqs` is the library's own request or the program's point-to-point one
// (handed_requests.hpp): they block in Engine::wait_one over the pending operations' messages
// and the point-to-point requests, and test only the library's requests that are complete. What
// the call returns; kTestInstead (elsewhere, or other requests among them) when the caller is to
// wait by testing.
constexpr int kTestInstead = -1;
// MPI_Waitall by testing each request on its own, advancing the operations in between (SimGrid
// 3.32's MPI_Testall frees the requests that completed even when others have not, and the call
// that finds the last one complete then gives those empty statuses). An error on request `failed`
// ends it as fail_all says: MPI_ERR_IN_STATUS, each status's error field set (MPI_ERR_PENDING
// where the request is still active), or just `rc` when the statuses are ignored.
int wait_all_testing_each(int n, MPI_Request reqs[], MPI_Status statuses[]);
int fail_all(int n, const MPI_Request reqs[], MPI_Status statuses[], int failed, int rc);
int wait_all_known(int n, MPI_Request reqs[], MPI_Status statuses[]);
int wait_any_known(int n, MPI_Request reqs[], int* index, MPI_Status* status);
int wait_some_known(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]);

// MPI_Testany and MPI_Testsome as the intercepted waits and tests use them (nonblocking.cpp).
int test_any(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status);
int test_some(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]);

// An MPI_I... call (or a persistent collective's start): the pending operations advanced, then
// `call` (the collective with the program's request) run as the operation being built.
template <class Call>
int run_nonblocking(const char* name, MPI_Comm comm, std::vector<MPI_Datatype> types, MPI_Op op, Call&& call) {
    Engine& e = engine();
    e.progress();
    e.begin(name, comm, std::move(types), op);
    const int rc = call();
    e.end();
    return rc;
}

}  // namespace gridcoll::pmpi
