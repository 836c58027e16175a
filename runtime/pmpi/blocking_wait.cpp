// Engine::wait_one: waiting for the pending operations by blocking in MPI instead of testing.
// SimGrid charges each failed MPI_Test (and each request of a failed MPI_Testsome) a simulated
// time that grows with every failure in a row (its smpi/test and smpi/grow-injected-times), so
// under SMPI a wait made of tests ran late: a non-blocking wanstream broadcast of 4 MiB on eight
// ranks took 190.9 s of simulated time where the blocking one took 21.1 s. Here every message in
// flight of every pending operation (and the program's one request, or a blocking collective's
// run, where given) goes into one MPI_Waitany, which blocks in simulated time as a blocking call
// does; the message that completed is handed to its run (ScheduleRun::completed_elsewhere).
#include "nonblocking.hpp"

#include <string>
#include <vector>

#include "comm_state.hpp"
#include "handed_requests.hpp"

namespace gridcoll::pmpi {

namespace {

// Who a request of the combined wait belongs to: an operation's run (op), the blocking
// collective's run beside them (the foreground), or the program's request (also); and its index
// in its run.
struct Owner {
    enum Kind { kAlso, kForeground, kOp } kind;
    PendingOp* op;
    std::size_t index;
};

void add_run(const ScheduleRun& run, Owner::Kind kind, PendingOp* op, std::vector<MPI_Request>& all,
             std::vector<Owner>& owners) {
    const std::vector<MPI_Request>& reqs = run.requests();
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        all.push_back(reqs[i]);
        owners.push_back({kind, op, i});
    }
}

}  // namespace

int Engine::wait_one(MPI_Request* also, MPI_Status* status, ScheduleRun* foreground, int* also_error) {
    std::lock_guard<std::mutex> hold(lock_);  // under SMPI no other thread advances them
    {
        std::lock_guard<std::mutex> in(inbox_lock_);
        pending_.splice(pending_.end(), inbox_);
    }
    std::vector<MPI_Request> all;
    std::vector<Owner> owners;
    if (also && *also != MPI_REQUEST_NULL) {
        all.push_back(*also);
        owners.push_back({Owner::kAlso, nullptr, 0});
    }
    if (foreground) add_run(*foreground, Owner::kForeground, nullptr, all, owners);
    const std::size_t before_ops = owners.size();
    for (const auto& op : pending_)
        if (op->run) add_run(*op->run, Owner::kOp, op.get(), all, owners);
    if (owners.size() == before_ops && !foreground) return -1;  // no operation's message in flight
    if (all.empty()) return -1;
    int index = MPI_UNDEFINED;
    MPI_Status got;
    const int rc = PMPI_Waitany(static_cast<int>(all.size()), all.data(), &index, &got);
    const bool theirs = index != MPI_UNDEFINED && owners[static_cast<std::size_t>(index)].kind == Owner::kAlso;
    if (rc != MPI_SUCCESS && !theirs) {  // the program's own request fails as its call says
        log("waiting for a pending operation's messages: MPI_Waitany failed (error " + std::to_string(rc) + ")");
        stop_job(MPI_COMM_WORLD, 3);
    }
    if (index == MPI_UNDEFINED) return -1;
    const Owner& o = owners[static_cast<std::size_t>(index)];
    if (o.kind == Owner::kAlso) {
        *also = all[static_cast<std::size_t>(index)];
        if (status != MPI_STATUS_IGNORE) *status = got;
        if (also_error) *also_error = rc;
        return 1;
    }
    if (o.kind == Owner::kForeground) {  // the caller's run: its errors are the caller's
        foreground->completed_elsewhere(o.index, got);
        return 2;
    }
    take_in(*o.op, o.index, got);
    return 0;
}

// The message `index` of pending operation `op` completed (by wait_one): taken in, and the
// operation completed and retired if that finished it.
void Engine::take_in(PendingOp& op, std::size_t index, const MPI_Status& status) {
    const bool was_inside = inside();
    inside() = true;
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
        if (it->get() != &op) continue;
        try {
            if (op.run->completed_elsewhere(index, status)) {
                finish(op);
                retire(it);
            }
        } catch (const std::exception& e) {
            log(op.name + ": " + e.what());
            stop_job(op.user, 3);
        }
        break;
    }
    inside() = was_inside;
}

bool Engine::pending(MPI_Request request) {
    std::lock_guard<std::mutex> hold(lock_);
    for (const auto& op : pending_)
        if (op->request == request) return true;
    std::lock_guard<std::mutex> in(inbox_lock_);
    for (const auto& op : inbox_)
        if (op->request == request) return true;
    return false;
}

int wait_point_to_point(MPI_Request* request, MPI_Status* status) {
    while (*request != MPI_REQUEST_NULL && !engine().idle()) {
#ifdef GRIDCOLL_SMPI
        int rc = MPI_SUCCESS;
        const int got = engine().wait_one(request, status, nullptr, &rc);
        if (got > 0) return rc;
        if (got < 0) engine().progress();  // nothing in flight: an operation still to take in
#else
        engine().progress();
        int done = 0;
        const int rc = PMPI_Test(request, &done, status);
        if (rc != MPI_SUCCESS || done) return rc;
#endif
    }
    return PMPI_Wait(request, status);  // nothing pending any more: MPI's own wait
}

void advance_beside(ScheduleRun& run) {
#ifdef GRIDCOLL_SMPI
    if (engine().wait_one(nullptr, MPI_STATUS_IGNORE, &run) >= 0) return;
#endif
    if (!run.progress(false)) engine().progress();
}

#ifdef GRIDCOLL_SMPI
namespace {

// Whether some request among `reqs` is active and every active one is the library's own.
bool all_handed(int n, const MPI_Request reqs[]) {
    bool any = false;
    for (int i = 0; i < n; ++i) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        if (!handed(reqs[i])) return false;
        any = true;
    }
    return any;
}

// How many of the active requests among `reqs` are operations still pending.
int pending_among(int n, const MPI_Request reqs[]) {
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (reqs[i] != MPI_REQUEST_NULL && engine().pending(reqs[i])) ++count;
    return count;
}

int active_among(int n, const MPI_Request reqs[]) {
    int count = 0;
    for (int i = 0; i < n; ++i)
        if (reqs[i] != MPI_REQUEST_NULL) ++count;
    return count;
}

// Blocks (one MPI_Waitany at a time over the pending operations' messages) while `waiting()`.
template <class Waiting>
void wait_while(Waiting&& waiting) {
    while (waiting())
        if (engine().wait_one(nullptr, MPI_STATUS_IGNORE) < 0) engine().progress();
}

}  // namespace
#endif

bool wait_handed(int n, const MPI_Request reqs[]) {
#ifdef GRIDCOLL_SMPI
    if (!all_handed(n, reqs)) return false;
    wait_while([&] { return pending_among(n, reqs) > 0; });
    // With other operations still pending, MPI's own wait is safe only if every request is
    // really a complete one of the library's; a handle taken back unseen and reused by MPI for a
    // point-to-point request would block there without advancing them: the caller tests instead.
    return engine().idle();
#else
    (void)n;
    (void)reqs;
    return false;
#endif
}

bool wait_handed_any(int n, const MPI_Request reqs[]) {
#ifdef GRIDCOLL_SMPI
    if (!all_handed(n, reqs)) return false;
    const int active = active_among(n, reqs);
    wait_while([&] { return pending_among(n, reqs) == active; });
    return true;
#else
    (void)n;
    (void)reqs;
    return false;
#endif
}

int next_complete_handed(int n, const MPI_Request reqs[], int from) {
    for (int i = from; i < n; ++i)
        if (reqs[i] != MPI_REQUEST_NULL && handed(reqs[i]) && !engine().pending(reqs[i])) return i;
    return -1;
}

}  // namespace gridcoll::pmpi
