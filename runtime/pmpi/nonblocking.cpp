#include "nonblocking.hpp"

#include "handed_requests.hpp"

#include "comm_state.hpp"
#include "handles.hpp"
#include "progress_thread.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gridcoll::pmpi {

namespace {

// The generalized request's callbacks: the status of a completed collective (nothing to
// report: MPI leaves a collective's status fields undefined but for MPI_ERROR); nothing to free;
// a collective cannot be cancelled.
int query(void*, MPI_Status* status) {
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
int free_state(void*) { return MPI_SUCCESS; }
int cancel(void*, int) { return MPI_SUCCESS; }

void hold_handles(const PendingOp& op) {
    for (MPI_Datatype t : op.types) hold_type(t);
    hold_op(op.op);
    hold_comm(op.user);
}

// After the operation is gone: releasing its communicator may free it (a deferred
// MPI_Comm_free), and with it the duplicate its messages used.
void release_handles(std::unique_ptr<PendingOp> op) {
    const std::vector<MPI_Datatype> types = std::move(op->types);
    const MPI_Op reduction = op->op;
    const MPI_Comm comm = op->user;
    op.reset();
    for (MPI_Datatype t : types) release_type(t);
    release_op(reduction);
    release_comm(comm);
}

}  // namespace

std::byte* PendingOp::scratch(std::uint64_t bytes) {
    arena.emplace_back(static_cast<std::size_t>(bytes));
    return arena.back().data();
}

bool PendingOp::advance() {
    int flag = 0;  // an MPI persistent request stays allocated when complete, inactive
    const int rc = PMPI_Test(&watched, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) throw std::runtime_error("the MPI library's persistent collective failed (error " + std::to_string(rc) + ")");
    return flag != 0;
}

thread_local std::unique_ptr<PendingOp> Engine::building_;

Engine& engine() {
    static Engine e;
    return e;
}

bool mpi_alone() { return inside() || engine().idle(); }

void Engine::begin(const char* name, MPI_Comm comm, std::vector<MPI_Datatype> types, MPI_Op op) {
    building_ = std::make_unique<PendingOp>();
    building_->name = name;
    building_->user = comm;
    building_->types = std::move(types);
    building_->op = op;
}

void Engine::watch(MPI_Request persistent, MPI_Request* request) {
    PendingOp& op = *building_;
    op.watched = persistent;
    PMPI_Grequest_start(query, free_state, cancel, nullptr, &op.request);
    *request = op.request;
}

void Engine::start(std::shared_ptr<const BuiltSchedule> plan, const Buffers& b, const ReduceFn* reduce,
                   MPI_Comm traffic, int tag, MPI_Request* request) {
    PendingOp& op = *building_;
    op.plan = std::move(plan);
    if (reduce) op.reduce = *reduce;
    PMPI_Grequest_start(query, free_state, cancel, nullptr, &op.request);
    hand_out(op.request);
    *request = op.request;
    op.run.emplace(traffic, tag);
    op.run->start(*op.plan, b, op.reduce ? &*op.reduce : nullptr);
}

// Runs with no operation being built on this thread: a completion inside another call (the
// next collective advances the pending ones) must not hand its unpacking on to that call's
// operation (when_complete), which would complete later than the program's wait.
void Engine::finish(PendingOp& op) {
    std::unique_ptr<PendingOp> built = std::move(building_);
    for (const auto& f : op.on_complete) f();
    PMPI_Grequest_complete(op.request);
    building_ = std::move(built);
}

void Engine::end() {
    // No longer the one being built: its completion's unpacking (when_complete) runs now.
    std::unique_ptr<PendingOp> op = std::move(building_);
    if (op && op->started()) {
        bool done = false;
        try {  // completing at once unpacks too (finish), which can fail as a step can
            done = op->run ? op->run->done() : op->advance();
            if (done) finish(*op);
        } catch (const std::exception& e) {
            log(op->name + ": " + e.what());
            stop_job(op->user, 3);
        }
        if (!done) {
            hold_handles(*op);
            // Into the inbox, not the list: progress() holds the list's lock while it runs the
            // program's reduction functions, which may wait for a lock this thread holds.
            std::lock_guard<std::mutex> hold(inbox_lock_);
            inbox_.push_back(std::move(op));
            ++count_;
        }
        notify_progress_thread();
    }
}

void Engine::progress() {
    free_deferred_comms();
    if (count_ == 0) return;
    std::unique_lock<std::mutex> hold(lock_, std::try_to_lock);
    if (!hold.owns_lock()) return;  // another thread is at it
    {
        std::lock_guard<std::mutex> in(inbox_lock_);
        pending_.splice(pending_.end(), inbox_);  // in the order they were started
    }
    const bool was_inside = inside();
    inside() = true;
    test_in_flight();
    std::size_t next = 0;  // the next of completions_ to hand in
    for (auto it = pending_.begin(); it != pending_.end();) {
        PendingOp& op = **it;
        try {
            if (!hand_in(op, next)) {
                ++it;
                continue;
            }
            finish(op);
        } catch (const std::exception& e) {
            log(op.name + ": " + e.what());
            stop_job(op.user, 3);
        }
        const auto finished = it++;
        retire(finished);
    }
    inside() = was_inside;
}

// One MPI_Testsome over the messages in flight of every pending operation, not one per
// operation: each test is a pass of the MPI library's progress, and Open MPI, oversubscribed,
// gives the processor up on every pass that finds nothing, so with 3000 broadcasts pending
// (pmpi_tags) every call cost 3000 passes. completions_ gets what completed, in pending_'s
// order: (operation, index among its run's requests, status).
void Engine::test_in_flight() {
    in_flight_.clear();
    owners_.clear();
    completions_.clear();
    for (const auto& op : pending_) {
        if (!op->run) continue;
        const std::vector<MPI_Request>& reqs = op->run->requests();
        for (std::size_t i = 0; i < reqs.size(); ++i) {
            in_flight_.push_back(reqs[i]);
            owners_.push_back({op.get(), static_cast<int>(i)});
        }
    }
    if (in_flight_.empty()) return;
    indices_.resize(in_flight_.size());
    statuses_.resize(in_flight_.size());
    int outcount = 0;
    const int rc = PMPI_Testsome(static_cast<int>(in_flight_.size()), in_flight_.data(), &outcount, indices_.data(),
                                 statuses_.data());
    if (outcount == MPI_UNDEFINED) outcount = 0;
    if (rc != MPI_SUCCESS) stop_on_failure(rc, outcount);
    for (std::size_t k = 0; k < static_cast<std::size_t>(outcount); ++k) {
        const InFlight& o = owners_[static_cast<std::size_t>(indices_[k])];
        completions_.push_back({indices_[k], o.op, o.index, statuses_[k]});
    }
    std::sort(completions_.begin(), completions_.end(),
              [](const Completion& a, const Completion& b) { return a.position < b.position; });
}

// The test failed: the job stops, naming the operation whose message failed where MPI says which
// (MPI_ERR_IN_STATUS; the program's communicator returns errors), and aborting on its communicator.
void Engine::stop_on_failure(int rc, int outcount) {
    const std::span<const MPI_Status> statuses(statuses_.data(), static_cast<std::size_t>(outcount));
    const PendingOp* op = nullptr;
    for (std::size_t k = 0; rc == MPI_ERR_IN_STATUS && k < statuses.size() && !op; ++k)
        if (statuses[k].MPI_ERROR != MPI_SUCCESS) op = owners_[static_cast<std::size_t>(indices_[k])].op;
    log((op ? op->name : std::string("the pending operations")) + ": completing messages failed: " +
        completion_failure(rc, statuses));
    stop_job(op ? op->user : MPI_COMM_WORLD, 3);
}

// `op`'s completions from completions_, starting at `next` (moved past them), taken in by its run
// (which posts what they release); a persistent collective of MPI's own tested. True when done.
bool Engine::hand_in(PendingOp& op, std::size_t& next) {
    if (!op.run) return op.advance();
    std::vector<int> indices;
    std::vector<MPI_Status> statuses;
    for (; next < completions_.size() && completions_[next].op == &op; ++next) {
        indices.push_back(completions_[next].index);
        statuses.push_back(completions_[next].status);
    }
    if (!indices.empty()) return op.run->completed_elsewhere(indices, statuses);
    return op.run->done() || (op.run->requests().empty() && op.run->progress(false));  // none in flight: stuck, it says
}

void Engine::retire(std::list<std::unique_ptr<PendingOp>>::iterator it) {
    std::unique_ptr<PendingOp> done = std::move(*it);
    pending_.erase(it);
    --count_;
    release_handles(std::move(done));
}

void wait_advancing(MPI_Request* request) {
    if (engine().idle()) {  // no polling (SMPI charges each failed MPI_Test simulated time)
        PMPI_Wait(request, MPI_STATUS_IGNORE);
        return;
    }
    for (int done = 0; PMPI_Test(request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done;) engine().progress();
}

// Always the non-blocking form: a blocking MPI_Allreduce does not match a non-blocking one, and
// ranks differ in what they have pending.
int agree_min(int value, MPI_Comm comm) {
    int all = value;
    MPI_Request r = MPI_REQUEST_NULL;
    PMPI_Iallreduce(&value, &all, 1, MPI_INT, MPI_MIN, comm, &r);
    wait_advancing(&r);
    return all;
}

void Engine::drain() {
    while (count_ > 0) progress();
    free_deferred_comms();
}

void when_complete(std::function<void()> f) {
    if (PendingOp* op = engine().building())
        op->on_complete.push_back(std::move(f));
    else
        f();
}

// MPI_Testany and MPI_Testsome: the MPI library's own, but under SMPI by MPI_Test on each
// request (SimGrid 3.32's own return at once with no index when a generalized request is among
// the requests; SMPI has no persistent collectives, and an inactive persistent point-to-point
// request there is taken as complete, as before).
// The flag is set when one completed (its index given) or none is active (MPI_UNDEFINED).
int test_any(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
#ifndef GRIDCOLL_SMPI
    return PMPI_Testany(n, reqs, index, flag, status);
#else
    *index = MPI_UNDEFINED;
    bool active = false;
    for (int i = 0; i < n; ++i) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        active = true;
        int done = 0;
        const int rc = PMPI_Test(&reqs[i], &done, status);
        if (rc != MPI_SUCCESS) return rc;
        if (done) {
            *index = i;
            *flag = 1;
            return MPI_SUCCESS;
        }
    }
    *flag = active ? 0 : 1;
    return MPI_SUCCESS;
#endif
}

int test_some(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
#ifndef GRIDCOLL_SMPI
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
#else
    *outcount = 0;
    bool active = false;
    for (int i = 0; i < n; ++i) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        active = true;
        int done = 0;
        MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[*outcount];
        const int rc = PMPI_Test(&reqs[i], &done, st);
        if (rc != MPI_SUCCESS) return rc;
        if (done) indices[(*outcount)++] = i;
    }
    if (!active) *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
#endif
}

}  // namespace gridcoll::pmpi
