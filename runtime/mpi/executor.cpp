#include "gridcoll/runtime/executor.hpp"

#include <cassert>
#include <climits>
#include <cstring>
#include <string>
#include <algorithm>

#include "gridcoll/algorithms/collective.hpp"

namespace gridcoll {

BuiltSchedule::BuiltSchedule(Schedule s) : schedule(std::move(s)), graph(schedule) {}

namespace {

// MPI counts are ints: a message of more than INT_MAX bytes goes as one element of a datatype of
// 1 MiB blocks and the rest (as BigMPI does), which the caller frees once it is posted.
struct Wire {
    int count;
    MPI_Datatype type;
};

Wire wire_for(std::uint64_t len) {
    if (len <= static_cast<std::uint64_t>(INT_MAX)) return {static_cast<int>(len), MPI_BYTE};
    constexpr std::uint64_t kBlock = std::uint64_t{1} << 20;
    MPI_Datatype block = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block);
    int lengths[2] = {static_cast<int>(len / kBlock), static_cast<int>(len % kBlock)};
    MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(len / kBlock * kBlock)};
    MPI_Datatype types[2] = {block, MPI_BYTE};
    MPI_Type_create_struct(lengths[1] ? 2 : 1, lengths, displacements, types, &whole);
    MPI_Type_commit(&whole);
    MPI_Type_free(&block);
    return {1, whole};
}

// The bytes a completed receive got; MPI_Get_count's int says MPI_UNDEFINED beyond INT_MAX.
std::uint64_t received_bytes(const MPI_Status& status, std::uint64_t expected) {
    int got = 0;
    MPI_Get_count(&status, MPI_BYTE, &got);
    if (got != MPI_UNDEFINED) return static_cast<std::uint64_t>(got);
#ifdef GRIDCOLL_SMPI
    return expected;  // SimGrid 3.32 has no MPI_Get_elements_x: a message that large is taken as whole
#else
    (void)expected;
    MPI_Count all = 0;
    MPI_Get_elements_x(&status, MPI_BYTE, &all);
    return all < 0 ? 0 : static_cast<std::uint64_t>(all);
#endif
}

}  // namespace

std::byte* ScheduleRun::base(Buf which) const {
    return which == Buf::In ? bufs_.in : which == Buf::Out ? bufs_.out : bufs_.tmp;
}

void Executor::run(const BuiltSchedule& p, const Buffers& bufs, const ReduceFn& reduce) {
    run_.start(p, bufs, &reduce);
    while (!run_.progress(true)) {
    }
}

void Executor::run(const BuiltSchedule& p, const Buffers& bufs, ElemType type, ReduceOp op) {
    run_.start(p, bufs, nullptr, type, op);
    while (!run_.progress(true)) {
    }
}

void Executor::run_beside(const BuiltSchedule& p, const Buffers& bufs, const ReduceFn* reduce,
                          const std::function<void(ScheduleRun&)>& advance) {
    run_.start(p, bufs, reduce);
    while (!run_.done()) advance(run_);
}

void ScheduleRun::start(const BuiltSchedule& p, const Buffers& bufs, const ReduceFn* reduce, ElemType type, ReduceOp op) {
    const Schedule& s = p.schedule;
    const std::size_t n = s.size_steps();
    plan_ = &p;
    bufs_ = bufs;
    reduce_ = reduce;
    type_ = type;
    op_ = op;
    pending_.resize(n);
    is_ready_.assign(n, 0);
    queue_next_.clear();
    for (const StepGraph::Queue& q : p.graph.queues()) queue_next_.push_back(q.first);
    reqs_.clear();
    req_step_.clear();
    local_ready_.clear();
    remaining_ = n;
    for (StepId i = 0; i < n; ++i) pending_[i] = s.step(i).dep_count;
    for (StepId i = 0; i < n; ++i)
        if (pending_[i] == 0) ready(i);
    run_local_steps();
}

// Local steps first: they may release more communication.
void ScheduleRun::run_local_steps() {
    while (!local_ready_.empty()) {
        const StepId i = local_ready_.back();
        local_ready_.pop_back();
        const Step& st = plan_->schedule.step(i);
        const std::byte* src = base(st.src.buf) + st.src.off;
        std::byte* dst = base(st.dst.buf) + st.dst.off;
        if (st.op == Op::Copy) {
            if (st.src.len) std::memmove(dst, src, st.src.len);
        } else if (reduce_) {
            (*reduce_)(src, dst, st.src.len, st.order);
        } else {
            reduce_local(type_, op_, src, dst, st.src.len, st.order);
        }
        finish(i);
    }
}

bool ScheduleRun::progress(bool wait) {
    if (remaining_ == 0) return true;
    if (reqs_.empty()) throw Error("executor: schedule of rank " + std::to_string(plan_->schedule.rank()) + " is stuck");
    int outcount = 0;
    done_idx_.resize(reqs_.size());
    statuses_.resize(reqs_.size());
    int rc = MPI_SUCCESS;
    if (!wait) {
        rc = MPI_Testsome(static_cast<int>(reqs_.size()), reqs_.data(), &outcount, done_idx_.data(), statuses_.data());
        if (outcount == MPI_UNDEFINED) outcount = 0;
    } else {
#ifdef GRIDCOLL_SMPI
        // Under SimGrid 3.32, MPI_Waitsome behaves as if it waited for every request: a segmented
        // pipeline broadcast of 1 MiB on 32 ranks of the default platform took 0.32 s with it
        // (no pipelining; unsegmented: 0.26 s) and 0.035 s with MPI_Waitany, which returns at
        // the first completion as MPI_Waitsome should.
        rc = MPI_Waitany(static_cast<int>(reqs_.size()), reqs_.data(), done_idx_.data(), statuses_.data());
        outcount = done_idx_[0] == MPI_UNDEFINED ? 0 : 1;
#else
        rc = MPI_Waitsome(static_cast<int>(reqs_.size()), reqs_.data(), &outcount, done_idx_.data(), statuses_.data());
#endif
    }
    if (rc != MPI_SUCCESS) throw Error(failure(rc, outcount));
    return take_in(outcount);
}

bool ScheduleRun::completed_elsewhere(std::size_t i, const MPI_Status& status) {
    const int index = static_cast<int>(i);
    return completed_elsewhere(std::span<const int>(&index, 1), std::span<const MPI_Status>(&status, 1));
}

bool ScheduleRun::completed_elsewhere(std::span<const int> indices, std::span<const MPI_Status> statuses) {
    done_idx_.assign(indices.begin(), indices.end());
    statuses_.assign(statuses.begin(), statuses.end());
    assert(indices.size() == statuses.size());
    for (int i : indices) reqs_[static_cast<std::size_t>(i)] = MPI_REQUEST_NULL;  // freed by the call that completed it
    return take_in(static_cast<int>(indices.size()));
}

// The first `outcount` completions of done_idx_ / statuses_: their steps finished, the request
// array compacted, the local steps they released run.
bool ScheduleRun::take_in(int outcount) {
    for (int k = 0; k < outcount; ++k)
        check_received(req_step_[static_cast<std::size_t>(done_idx_[static_cast<std::size_t>(k)])],
                       statuses_[static_cast<std::size_t>(k)]);
    // Finish the completed steps, then compact the request array.
    for (int k = 0; k < outcount; ++k) finish(req_step_[static_cast<std::size_t>(done_idx_[static_cast<std::size_t>(k)])]);
    std::size_t w = 0;
    for (std::size_t r = 0; r < reqs_.size(); ++r) {
        if (reqs_[r] == MPI_REQUEST_NULL) continue;
        reqs_[w] = reqs_[r];
        req_step_[w] = req_step_[r];
        ++w;
    }
    reqs_.resize(w);
    req_step_.resize(w);
    run_local_steps();
    return remaining_ == 0;
}

void ScheduleRun::ready(StepId i) {
    const Step& st = plan_->schedule.step(i);
    if (st.op == Op::Copy || st.op == Op::Reduce) {
        local_ready_.push_back(i);
        return;
    }
    is_ready_[i] = 1;
    start_queue(plan_->graph.queue_of(i));
}

// Posts the ready prefix of queue q.
void ScheduleRun::start_queue(std::uint32_t q) {
    while (queue_next_[q] != kNoStep && is_ready_[queue_next_[q]]) {
        const StepId i = queue_next_[q];
        queue_next_[q] = plan_->graph.next_in_queue(i);
        const Step& st = plan_->schedule.step(i);
        MPI_Request req;
        int rc;
        Wire w = wire_for(st.op == Op::Send ? st.src.len : st.dst.len);
        if (st.op == Op::Send) {
            rc = MPI_Isend(base(st.src.buf) + st.src.off, w.count, w.type, st.peer, tag_ + st.channel, comm_, &req);
        } else {
            rc = MPI_Irecv(base(st.dst.buf) + st.dst.off, w.count, w.type, st.peer, tag_ + st.channel, comm_, &req);
        }
        if (w.type != MPI_BYTE) MPI_Type_free(&w.type);  // the posted message keeps it
        if (rc != MPI_SUCCESS) throw Error("executor: posting a message failed");
        reqs_.push_back(req);
        req_step_.push_back(i);
    }
}

// A receive that got fewer bytes than its step expects: the ranks disagree on the message (their
// counts or datatypes differ, erroneous in MPI); waiting on would wait for bytes never sent.
void ScheduleRun::check_received(StepId i, const MPI_Status& status) const {
    const Step& st = plan_->schedule.step(i);
    if (st.op != Op::Recv) return;
    const std::uint64_t got = received_bytes(status, st.dst.len);
    if (got == st.dst.len) return;
    throw Error("executor: rank " + std::to_string(plan_->schedule.rank()) + " received " + std::to_string(got) +
                " bytes from rank " + std::to_string(st.peer) + " where its schedule expects " + std::to_string(st.dst.len) +
                ": the ranks' counts or datatypes for this call differ (erroneous in MPI)");
}

// What MPI said when completing messages failed (a message longer than its receive: the same
// disagreement as above).
std::string ScheduleRun::failure(int rc, int outcount) const {
    const std::size_t n = outcount > 0 ? static_cast<std::size_t>(outcount) : 0;
    const std::span<const MPI_Status> completed = std::span<const MPI_Status>(statuses_).first(n);
    return "executor: completing messages failed: " + completion_failure(rc, completed);
}

std::string completion_failure(int rc, std::span<const MPI_Status> statuses) {
    int code = rc;
    for (const MPI_Status& st : statuses)
        if (rc == MPI_ERR_IN_STATUS && st.MPI_ERROR != MPI_SUCCESS) {
            code = st.MPI_ERROR;
            break;
        }
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(code, text, &len);
    int cls = code;
    MPI_Error_class(code, &cls);
    return std::string(text, static_cast<std::size_t>(len)) +
           (cls == MPI_ERR_TRUNCATE ? " (the ranks' counts or datatypes for this call differ, erroneous in MPI)" : "");
}

void ScheduleRun::finish(StepId i) {
    --remaining_;
    for (const StepId s : plan_->graph.successors(i))
        if (--pending_[s] == 0) ready(s);
}

}  // namespace gridcoll
