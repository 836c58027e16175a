// Engine::wait_one: waiting for the pending operations by blocking in MPI instead of testing.
// SimGrid 3.32 charges each MPI_Test (and each request of an MPI_Testsome), before it, 0.1 ms
// times a count that every failed test of any rank raises and a successful one resets (its
// smpi/test and smpi/grow-injected-times), so under SMPI a wait made of tests ran late: a
// non-blocking wanstream broadcast of 4 MiB on eight ranks took 190.9 s of simulated time where
// the blocking one took 21.1 s. Here every message in flight of every pending operation (and the
// program's point-to-point requests waited for, or a blocking collective's run, where given) goes
// into one MPI_Waitany, which blocks in simulated time as a blocking call does; the message that
// completed is handed to its run (ScheduleRun::completed_elsewhere). The program's waits over the
// library's requests and its own point-to-point ones are made of it (wait_handed, wait_all_known
// and their kin), testing only requests known to be complete.
#include "nonblocking.hpp"

#include <string>
#include <utility>
#include <vector>

#include "comm_state.hpp"
#include "handed_requests.hpp"

namespace gridcoll::pmpi {

namespace {

// Status `k` of `statuses`, or MPI_STATUS_IGNORE.
MPI_Status* slot(MPI_Status statuses[], int k) { return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k]; }

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

int Engine::wait_one(std::span<MPI_Request> also, MPI_Status* status, ScheduleRun* foreground, int* also_error,
                     int* also_index) {
    std::lock_guard<std::mutex> hold(lock_);  // under SMPI no other thread advances them
    {
        std::lock_guard<std::mutex> in(inbox_lock_);
        pending_.splice(pending_.end(), inbox_);
    }
    std::vector<MPI_Request> all;
    std::vector<Owner> owners;
    for (std::size_t i = 0; i < also.size(); ++i) {
        if (also[i] == MPI_REQUEST_NULL) continue;
        all.push_back(also[i]);
        owners.push_back({Owner::kAlso, nullptr, i});
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
        also[o.index] = all[static_cast<std::size_t>(index)];
        if (also_index) *also_index = static_cast<int>(o.index);
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
        const int got = engine().wait_one({request, 1}, status, nullptr, &rc);
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
    if (engine().wait_one({}, MPI_STATUS_IGNORE, &run) >= 0) return;
#endif
    if (!run.progress(false)) engine().progress();
}

#ifdef GRIDCOLL_SMPI
namespace {

// Whether some request among `reqs` is active and every active one is the library's own (or,
// with `or_point_to_point`, the program's kept point-to-point one).
bool all_kept(int n, const MPI_Request reqs[], bool or_point_to_point) {
    bool any = false;
    for (int i = 0; i < n; ++i) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        if (!handed(reqs[i]) && !(or_point_to_point && point_to_point(reqs[i]))) return false;
        any = true;
    }
    return any;
}

bool all_handed(int n, const MPI_Request reqs[]) { return all_kept(n, reqs, false); }
bool all_known(int n, const MPI_Request reqs[]) { return all_kept(n, reqs, true); }

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

// The active point-to-point requests among `reqs` and their indices.
struct OpenRequests {
    std::vector<int> index;
    std::vector<MPI_Request> request;
};

OpenRequests open_point_to_point(int n, const MPI_Request reqs[]) {
    OpenRequests open;
    for (int i = 0; i < n; ++i)
        if (reqs[i] != MPI_REQUEST_NULL && point_to_point(reqs[i]) && !handed(reqs[i])) {
            open.index.push_back(i);
            open.request.push_back(reqs[i]);
        }
    return open;
}

// Blocks until one of the active point-to-point requests among `reqs` completes (its slot
// MPI_REQUEST_NULL then, its status in `status`, MPI's code in `rc`: its index) or a pending
// operation's message does (-1).
int wait_point_to_point_or_op(int n, MPI_Request reqs[], MPI_Status* status, int* rc) {
    OpenRequests open = open_point_to_point(n, reqs);
    int which = -1;
    const int got = engine().wait_one(open.request, status, nullptr, rc, &which);
    if (got < 0) engine().progress();  // nothing in flight: an operation still to take in
    if (got != 1) return -1;
    const int i = open.index[static_cast<std::size_t>(which)];
    reqs[i] = MPI_REQUEST_NULL;
    return i;
}

// Tests the library's requests among `reqs` that are complete (tests that succeed), appending
// each one that completed to `indices` / its status; MPI's code.
int test_complete_handed(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
    for (int i = next_complete_handed(n, reqs, 0); i >= 0; i = next_complete_handed(n, reqs, i + 1)) {
        int flag = 0;
        const int rc = PMPI_Test(&reqs[i], &flag, slot(statuses, *outcount));
        if (rc != MPI_SUCCESS) return rc;
        if (flag) indices[(*outcount)++] = i;
    }
    return MPI_SUCCESS;
}

// Blocks (one MPI_Waitany at a time over the pending operations' messages) while `waiting()`.
template <class Waiting>
void wait_while(Waiting&& waiting) {
    while (waiting())
        if (engine().wait_one({}, MPI_STATUS_IGNORE) < 0) engine().progress();
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

int fail_all(int n, const MPI_Request reqs[], MPI_Status statuses[], int failed, int rc) {
    if (statuses == MPI_STATUSES_IGNORE) return rc;
    for (int i = 0; i < n; ++i) statuses[i].MPI_ERROR = reqs[i] != MPI_REQUEST_NULL ? MPI_ERR_PENDING : MPI_SUCCESS;
    statuses[failed].MPI_ERROR = rc;
    return MPI_ERR_IN_STATUS;
}

int wait_all_testing_each(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    std::vector<char> open(static_cast<std::size_t>(n));
    int left = 0;
    for (int i = 0; i < n; ++i) {
        open[static_cast<std::size_t>(i)] = reqs[i] != MPI_REQUEST_NULL;
        left += open[static_cast<std::size_t>(i)];
        MPI_Request none = MPI_REQUEST_NULL;
        if (reqs[i] == MPI_REQUEST_NULL) PMPI_Wait(&none, slot(statuses, i));  // its status an empty one
    }
    while (left > 0) {
        engine().progress();
        for (int i = 0; i < n; ++i) {
            if (!open[static_cast<std::size_t>(i)]) continue;
            int done = 0;
            const int rc = PMPI_Test(&reqs[i], &done, slot(statuses, i));
            if (rc != MPI_SUCCESS) return fail_all(n, reqs, statuses, i, rc);
            if (done) {
                open[static_cast<std::size_t>(i)] = 0;
                --left;
            }
        }
    }
    return MPI_SUCCESS;
}

int wait_all_known(int n, MPI_Request reqs[], MPI_Status statuses[]) {
#ifdef GRIDCOLL_SMPI
    if (!all_known(n, reqs)) return kTestInstead;
    std::vector<std::pair<int, MPI_Status>> done;  // completed here: a later wait empties their status
    const auto put_back = [&] {
        if (statuses != MPI_STATUSES_IGNORE)
            for (const auto& [i, status] : done) statuses[i] = status;
    };
    while (!engine().idle() && !open_point_to_point(n, reqs).index.empty()) {
        MPI_Status status;
        int rc = MPI_SUCCESS;
        const int i = wait_point_to_point_or_op(n, reqs, &status, &rc);
        if (i < 0) continue;
        done.emplace_back(i, status);
        if (rc != MPI_SUCCESS) {
            put_back();
            return fail_all(n, reqs, statuses, i, rc);
        }
    }
    wait_while([&] { return pending_among(n, reqs) > 0; });  // the library's own
    // Nothing pending: MPI's own wait. Else only complete requests of the library's are left:
    // as wait_handed says, tested.
    const int rc = engine().idle() ? waitall_keeping_handed(n, reqs, statuses) : wait_all_testing_each(n, reqs, statuses);
    put_back();
    return rc;
#else
    (void)n, (void)reqs, (void)statuses;
    return kTestInstead;
#endif
}

int wait_any_known(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
#ifdef GRIDCOLL_SMPI
    if (!all_known(n, reqs)) return kTestInstead;
    while (true) {
        for (int i = next_complete_handed(n, reqs, 0); i >= 0; i = next_complete_handed(n, reqs, i + 1)) {
            int flag = 0;
            const int rc = PMPI_Test(&reqs[i], &flag, status);
            if (rc != MPI_SUCCESS || flag) {
                *index = i;
                return rc;
            }
        }
        if (engine().idle()) return PMPI_Waitany(n, reqs, index, status);  // point-to-point ones left
        int rc = MPI_SUCCESS;
        const int i = wait_point_to_point_or_op(n, reqs, status, &rc);
        if (i >= 0) {
            *index = i;
            return rc;
        }
    }
#else
    (void)n, (void)reqs, (void)index, (void)status;
    return kTestInstead;
#endif
}

int wait_some_known(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
#ifdef GRIDCOLL_SMPI
    if (!all_known(n, reqs)) return kTestInstead;
    while (true) {
        *outcount = 0;
        int rc = test_complete_handed(n, reqs, outcount, indices, statuses);
        if (rc != MPI_SUCCESS || *outcount > 0) return rc;
        if (engine().idle()) return PMPI_Waitsome(n, reqs, outcount, indices, statuses);  // point-to-point ones left
        const int i = wait_point_to_point_or_op(n, reqs, slot(statuses, 0), &rc);
        if (i >= 0) {  // with the library's requests complete by now (other point-to-point ones untested)
            indices[0] = i;
            *outcount = 1;
            return rc != MPI_SUCCESS ? rc : test_complete_handed(n, reqs, outcount, indices, statuses);
        }
    }
#else
    (void)n, (void)reqs, (void)outcount, (void)indices, (void)statuses;
    return kTestInstead;
#endif
}

}  // namespace gridcoll::pmpi
