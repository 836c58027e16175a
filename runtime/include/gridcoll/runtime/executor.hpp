// The MPI executor: runs one rank's schedule with non-blocking point-to-point calls, starting
// each step as soon as its dependencies are done. The same source is compiled against Open MPI
// and against SimGrid SMPI.
//
// A schedule is first turned into a BuiltSchedule (with its StepGraph: successor lists and
// per-peer posting queues), built once and reused for every run of the same schedule (the
// communicator context caches them). Running one:
//   - local steps (copy, reduce) execute inline the moment they become ready;
//   - sends and receives are posted with MPI_Isend / MPI_Irecv, in schedule order per peer and
//     direction (the FIFO matching rule of schedule.hpp), as soon as they and every earlier
//     step to/from the same peer are ready;
//   - MPI_Waitsome collects completions and releases successors.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/step_graph.hpp"
#include "gridcoll/runtime/local_ops.hpp"

namespace gridcoll {

// A schedule with its derived graph. Its messages may be of any size (over INT_MAX bytes one goes
// as a single element of a derived datatype).
struct BuiltSchedule {
    explicit BuiltSchedule(Schedule s);
    Schedule schedule;
    StepGraph graph;
};

struct Buffers {
    std::byte* in = nullptr;
    std::byte* out = nullptr;
    std::byte* tmp = nullptr;
};

// How a reduction step combines `bytes` bytes: dst = src op dst (Order::SrcLeft) or
// dst = dst op src (Order::DstLeft). The PMPI library passes one over MPI_Reduce_local, so any
// MPI datatype and operation (user-defined ones included) reduce as the application asked.
using ReduceFn = std::function<void(const std::byte* src, std::byte* dst, std::size_t bytes, Order order)>;

// One run of a schedule, advanced step by step: start() posts what is ready at once, progress()
// completes what has completed and posts what that releases. The blocking Executor below drives
// one to the end; the PMPI library keeps one per pending non-blocking collective and advances it
// whenever the program enters MPI (MPI_Test, MPI_Wait, ..., later collectives).
class ScheduleRun {
public:
    ScheduleRun(MPI_Comm comm, int tag) : comm_(comm), tag_(tag) {}
    // The schedule and buffers must outlive the run. Reductions by `reduce` when given, else
    // reduce_local(type, op). Local steps that are ready run now.
    void start(const BuiltSchedule& s, const Buffers& bufs, const ReduceFn* reduce, ElemType type = ElemType::Int32,
               ReduceOp op = ReduceOp::Sum);
    // Completes the messages that have completed (`wait`: waits for at least one first) and
    // everything that releases. True when the run is done. Throws Error on MPI failure.
    bool progress(bool wait);
    bool done() const { return remaining_ == 0; }
    void set_tag(int tag) { tag_ = tag; }
    // The requests of the messages in flight, for a wait or test over several runs' messages at
    // once (the PMPI library), and the completions such a call made of some of them, taken in as
    // progress() would: all of one call's at once (distinct indices into requests() as it was
    // for that call, which the next call compacts; one status each; the call's copies of the
    // handles freed). True when done.
    const std::vector<MPI_Request>& requests() const { return reqs_; }
    bool completed_elsewhere(std::size_t i, const MPI_Status& status);
    bool completed_elsewhere(std::span<const int> indices, std::span<const MPI_Status> statuses);

private:
    bool take_in(int outcount);
    std::byte* base(Buf which) const;
    void ready(StepId s);
    void start_queue(std::uint32_t q);
    void finish(StepId s);
    void run_local_steps();
    void check_received(StepId s, const MPI_Status& status) const;
    std::string failure(int rc, int outcount) const;

    MPI_Comm comm_;
    int tag_;
    const BuiltSchedule* plan_ = nullptr;
    Buffers bufs_;
    ElemType type_ = ElemType::Int32;
    ReduceOp op_ = ReduceOp::Sum;
    const ReduceFn* reduce_ = nullptr;  // set: reductions by it, else reduce_local(type_, op_)
    std::vector<std::uint32_t> pending_;
    std::vector<char> is_ready_;
    std::vector<StepId> queue_next_;  // per queue: its next step to post
    std::vector<StepId> local_ready_;
    std::vector<MPI_Request> reqs_;
    std::vector<StepId> req_step_;
    std::vector<int> done_idx_;
    std::vector<MPI_Status> statuses_;
    std::size_t remaining_ = 0;
};

// What a failed completion call (MPI_Testsome, MPI_Waitsome, ...) says: MPI's text for `rc`, or
// under MPI_ERR_IN_STATUS for the first failing one of `statuses`, with a hint on a truncation.
std::string completion_failure(int rc, std::span<const MPI_Status> statuses);

class Executor {
public:
    // `tag` separates the executor's messages from any other traffic on `comm`.
    Executor(MPI_Comm comm, int tag = 7001) : run_(comm, tag) {}
    // Runs the schedule to completion. Reductions use `type` and `op`. Throws Error on MPI failure.
    void run(const BuiltSchedule& s, const Buffers& bufs, ElemType type = ElemType::Int32, ReduceOp op = ReduceOp::Sum);
    // The same with reductions by `reduce`.
    void run(const BuiltSchedule& s, const Buffers& bufs, const ReduceFn& reduce);
    // The same (reductions by `reduce` where given, else none), the run advanced by `advance`
    // until done instead of blocking in MPI on its messages alone: the PMPI library advances its
    // pending non-blocking operations so while a blocking one runs (MPI's progress rule).
    void run_beside(const BuiltSchedule& s, const Buffers& bufs, const ReduceFn* reduce,
                    const std::function<void(ScheduleRun&)>& advance);
    // The tag of the next runs (the PMPI library numbers its operations).
    void set_tag(int tag) { run_.set_tag(tag); }

private:
    ScheduleRun run_;  // its vectors are reused from run to run
};

}  // namespace gridcoll
