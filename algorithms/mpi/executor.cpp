#include "executor.hpp"

#include <climits>
#include <cstring>
#include <string>
#include <unordered_map>

#include "gridcoll/collective.hpp"

namespace gridcoll {

Plan::Plan(Schedule s) : sched_(std::move(s)) {
    const std::size_t n = sched_.size_steps();
    // Successors in CSR form.
    succ_begin_.assign(n + 1, 0);
    for (StepId i = 0; i < n; ++i)
        for (StepId d : sched_.deps_of(i)) ++succ_begin_[d + 1];
    for (std::size_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
    succ_.resize(succ_begin_[n]);
    std::vector<std::uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
    for (StepId i = 0; i < n; ++i)
        for (StepId d : sched_.deps_of(i)) succ_[fill[d]++] = i;
    // One posting queue per (peer, direction), steps in schedule order.
    std::unordered_map<std::int64_t, std::uint32_t> queue_id;
    queue_of_.assign(n, 0);
    std::vector<std::vector<StepId>> queues;
    for (StepId i = 0; i < n; ++i) {
        const Step& st = sched_.step(i);
        if (st.op != Op::Send && st.op != Op::Recv) continue;
        const std::int64_t key = static_cast<std::int64_t>(st.peer) * 2 + (st.op == Op::Send ? 0 : 1);
        auto [it, fresh] = queue_id.try_emplace(key, static_cast<std::uint32_t>(queues.size()));
        if (fresh) queues.emplace_back();
        queue_of_[i] = it->second;
        queues[it->second].push_back(i);
        if (std::max(st.src.len, st.dst.len) > static_cast<std::uint64_t>(INT_MAX))
            throw Error("message of " + std::to_string(std::max(st.src.len, st.dst.len)) +
                        " bytes exceeds the MPI count limit; use a segment size below 2 GiB");
    }
    queue_begin_.assign(queues.size() + 1, 0);
    for (std::size_t q = 0; q < queues.size(); ++q) {
        queue_begin_[q + 1] = queue_begin_[q] + static_cast<std::uint32_t>(queues[q].size());
        queue_steps_.insert(queue_steps_.end(), queues[q].begin(), queues[q].end());
    }
}

std::byte* Executor::base(const Buffers& b, Buf which) const {
    return which == Buf::In ? b.in : which == Buf::Out ? b.out : b.tmp;
}

void Executor::run(const Plan& p, const Buffers& bufs, ElemType type, ReduceOp op) {
    const Schedule& s = p.sched_;
    const std::size_t n = s.size_steps();
    bufs_ = &bufs;
    type_ = type;
    op_ = op;
    pending_.resize(n);
    is_ready_.assign(n, 0);
    queue_next_.assign(p.queue_begin_.size() - 1, 0);
    for (std::size_t q = 0; q + 1 < p.queue_begin_.size(); ++q) queue_next_[q] = p.queue_begin_[q];
    reqs_.clear();
    req_step_.clear();
    local_ready_.clear();
    remaining_ = n;
    for (StepId i = 0; i < n; ++i) pending_[i] = s.step(i).dep_count;
    for (StepId i = 0; i < n; ++i)
        if (pending_[i] == 0) ready(p, i);
    while (remaining_ > 0) {
        // Local steps first: they may release more communication.
        while (!local_ready_.empty()) {
            const StepId i = local_ready_.back();
            local_ready_.pop_back();
            const Step& st = s.step(i);
            const std::byte* src = base(bufs, st.src.buf) + st.src.off;
            std::byte* dst = base(bufs, st.dst.buf) + st.dst.off;
            if (st.op == Op::Copy) {
                if (st.src.len) std::memmove(dst, src, st.src.len);
            } else {
                reduce_local(type_, op_, src, dst, st.src.len, st.order);
            }
            finish(p, i);
        }
        if (remaining_ == 0) break;
        if (reqs_.empty()) throw Error("executor: schedule of rank " + std::to_string(s.rank()) + " is stuck");
        int outcount = 0;
        done_idx_.resize(reqs_.size());
#ifdef GRIDCOLL_SMPI
        // Under SimGrid 3.32, MPI_Waitsome behaves as if it waited for every request: a segmented
        // pipeline broadcast of 1 MiB on 32 ranks of the default platform took 0.32 s with it
        // (no pipelining; unsegmented: 0.26 s) and 0.035 s with MPI_Waitany, which returns at
        // the first completion as MPI_Waitsome should.
        if (MPI_Waitany(static_cast<int>(reqs_.size()), reqs_.data(), done_idx_.data(), MPI_STATUS_IGNORE) != MPI_SUCCESS)
            throw Error("executor: MPI_Waitany failed");
        outcount = done_idx_[0] == MPI_UNDEFINED ? 0 : 1;
#else
        if (MPI_Waitsome(static_cast<int>(reqs_.size()), reqs_.data(), &outcount, done_idx_.data(), MPI_STATUSES_IGNORE) !=
            MPI_SUCCESS)
            throw Error("executor: MPI_Waitsome failed");
#endif
        // Finish the completed steps, then compact the request array.
        for (int k = 0; k < outcount; ++k) finish(p, req_step_[static_cast<std::size_t>(done_idx_[static_cast<std::size_t>(k)])]);
        std::size_t w = 0;
        for (std::size_t r = 0; r < reqs_.size(); ++r) {
            if (reqs_[r] == MPI_REQUEST_NULL) continue;
            reqs_[w] = reqs_[r];
            req_step_[w] = req_step_[r];
            ++w;
        }
        reqs_.resize(w);
        req_step_.resize(w);
    }
}

void Executor::ready(const Plan& p, StepId i) {
    const Step& st = p.sched_.step(i);
    if (st.op == Op::Copy || st.op == Op::Reduce) {
        local_ready_.push_back(i);
        return;
    }
    is_ready_[i] = 1;
    start_queue(p, p.queue_of_[i]);
}

// Posts the ready prefix of queue q.
void Executor::start_queue(const Plan& p, std::uint32_t q) {
    const std::uint32_t end = p.queue_begin_[q + 1];
    while (queue_next_[q] < end && is_ready_[p.queue_steps_[queue_next_[q]]]) {
        const StepId i = p.queue_steps_[queue_next_[q]++];
        const Step& st = p.sched_.step(i);
        MPI_Request req;
        int rc;
        if (st.op == Op::Send) {
            rc = MPI_Isend(base(*bufs_, st.src.buf) + st.src.off, static_cast<int>(st.src.len), MPI_BYTE, st.peer, tag_,
                           comm_, &req);
        } else {
            rc = MPI_Irecv(base(*bufs_, st.dst.buf) + st.dst.off, static_cast<int>(st.dst.len), MPI_BYTE, st.peer, tag_,
                           comm_, &req);
        }
        if (rc != MPI_SUCCESS) throw Error("executor: posting a message failed");
        reqs_.push_back(req);
        req_step_.push_back(i);
    }
}

void Executor::finish(const Plan& p, StepId i) {
    --remaining_;
    for (std::uint32_t k = p.succ_begin_[i]; k < p.succ_begin_[i + 1]; ++k) {
        const StepId s = p.succ_[k];
        if (--pending_[s] == 0) ready(p, s);
    }
}

}  // namespace gridcoll
