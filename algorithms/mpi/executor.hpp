// The MPI executor: runs one rank's schedule with non-blocking point-to-point calls, starting
// each step as soon as its dependencies are done. The same source is compiled against Open MPI
// and against SimGrid SMPI.
//
// A schedule is first turned into a Plan (successor lists and per-peer posting queues), built
// once and reused for every run of the same schedule. Running a plan:
//   - local steps (copy, reduce) execute inline the moment they become ready;
//   - sends and receives are posted with MPI_Isend / MPI_Irecv, in schedule order per peer and
//     direction (the FIFO matching rule of schedule.hpp), as soon as they and every earlier
//     step to/from the same peer are ready;
//   - MPI_Waitsome collects completions and releases successors.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gridcoll/schedule.hpp"
#include "local_ops.hpp"

namespace gridcoll {

class Plan {
public:
    explicit Plan(Schedule s);
    const Schedule& schedule() const { return sched_; }

private:
    friend class Executor;
    Schedule sched_;
    std::vector<std::uint32_t> succ_begin_;  // CSR successors, size steps + 1
    std::vector<StepId> succ_;
    std::vector<std::uint32_t> queue_of_;    // comm step -> its (peer, direction) queue
    std::vector<std::uint32_t> queue_begin_; // CSR: queue -> its steps in schedule order
    std::vector<StepId> queue_steps_;
};

struct Buffers {
    std::byte* in = nullptr;
    std::byte* out = nullptr;
    std::byte* tmp = nullptr;
};

class Executor {
public:
    // `tag` separates the executor's messages from any other traffic on `comm`.
    Executor(MPI_Comm comm, int tag = 7001) : comm_(comm), tag_(tag) {}
    // Runs the plan to completion. Reductions use `type` and `op`. Throws Error on MPI failure.
    void run(const Plan& plan, const Buffers& bufs, ElemType type = ElemType::Int32, ReduceOp op = ReduceOp::Sum);

private:
    std::byte* base(const Buffers& b, Buf which) const;
    void ready(const Plan& p, StepId s);
    void start_queue(const Plan& p, std::uint32_t q);
    void finish(const Plan& p, StepId s);

    MPI_Comm comm_;
    int tag_;
    // Per-run state, kept between runs to avoid allocation.
    const Buffers* bufs_ = nullptr;
    ElemType type_ = ElemType::Int32;
    ReduceOp op_ = ReduceOp::Sum;
    std::vector<std::uint32_t> pending_;
    std::vector<char> is_ready_;
    std::vector<std::uint32_t> queue_next_;
    std::vector<StepId> local_ready_;
    std::vector<MPI_Request> reqs_;
    std::vector<StepId> req_step_;
    std::vector<int> done_idx_;
    std::size_t remaining_ = 0;
};

}  // namespace gridcoll
