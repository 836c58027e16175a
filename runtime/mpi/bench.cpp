#include "gridcoll/runtime/bench.hpp"
#include "gridcoll/runtime/dilation.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gridcoll/runtime/data_pattern.hpp"
#include "gridcoll/runtime/native.hpp"

#ifdef GRIDCOLL_SMPI
#include <simgrid/actor.h>
#include <smpi/smpi.h>
#endif

namespace gridcoll {

namespace {

// Distinct tags: a fast rank's next-barrier ACK must never count as another rank's report.
constexpr int kAckTag = 9001;
constexpr int kGoTag = 9002;
constexpr int kReportTag = 9003;

// One rank's buffers, optionally SMPI shared (contents meaningless, memory folded).
class Memory {
public:
    explicit Memory(bool shared) : shared_(shared) {}
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;
    ~Memory() {
        for (auto& s : slots_) release(s);
    }
    std::byte* get(int which, std::uint64_t bytes) {
        Slot& slot = slots_[which];
        if (slot.size >= bytes && slot.ptr) return slot.ptr;
        release(slot);
        const std::size_t n = std::max<std::uint64_t>(bytes, 1);
#ifdef GRIDCOLL_SMPI
        slot.ptr = static_cast<std::byte*>(shared_ ? SMPI_SHARED_MALLOC(n) : ::operator new(n));
#else
        slot.ptr = static_cast<std::byte*>(::operator new(n));
#endif
        slot.size = n;
        return slot.ptr;
    }

private:
    struct Slot {
        std::byte* ptr = nullptr;
        std::uint64_t size = 0;
    };
    void release(Slot& s) {
        if (!s.ptr) return;
#ifdef GRIDCOLL_SMPI
        if (shared_) SMPI_SHARED_FREE(s.ptr);
        else ::operator delete(s.ptr);
#else
        ::operator delete(s.ptr);
#endif
        s = {};
    }
    bool shared_;
    Slot slots_[3];
};

// The root waits for a zero-byte message with `tag` from every other rank. All receives are
// posted at once, so the reports travel in parallel (as a real network would carry them).
void gather_reports(MPI_Comm comm, int rank, int size, int root, int tag, std::vector<MPI_Request>& reqs) {
    if (rank != root) {
        MPI_Send(nullptr, 0, MPI_BYTE, root, tag, comm);
        return;
    }
    reqs.clear();
    for (int r = 0; r < size; ++r) {
        if (r == root) continue;
        reqs.emplace_back();
        MPI_Irecv(nullptr, 0, MPI_BYTE, r, tag, comm, &reqs.back());
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

// Paper 001's ack_barrier: everyone reports to `root`, then `root` releases everyone.
void ack_barrier(MPI_Comm comm, int rank, int size, int root, std::vector<MPI_Request>& reqs) {
    gather_reports(comm, rank, size, root, kAckTag, reqs);
    if (rank != root) {
        MPI_Recv(nullptr, 0, MPI_BYTE, root, kGoTag, comm, MPI_STATUS_IGNORE);
        return;
    }
    reqs.clear();
    for (int r = 0; r < size; ++r) {
        if (r == root) continue;
        reqs.emplace_back();
        MPI_Isend(nullptr, 0, MPI_BYTE, r, kGoTag, comm, &reqs.back());
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

// One point of a batch, timed and verified at every rank.
class Point {
public:
    Point(CommContext& ctx, const Batch& batch, const MpiBenchSettings& s, Memory& mem)
        : ctx_(ctx), batch_(batch), settings_(s), mem_(mem), exec_(ctx.comm()) {}

    ResultRow measure(const Operation& given) {
        const Decision d = ctx_.decide(given);
        Operation op = given;
        op.method = d.method;
        errors_ = 0;
        first_error_.clear();
        ResultRow row;
        row.reps = batch_.reps;
        if (batch_.timing == Timing::PerRank) {
            if (op.root == kEveryRoot) op.root = 0;  // back-to-back calls keep one root, as OSU's do
            row.time = per_rank(op);
        } else if (batch_.timing == Timing::Sync) {
            row.time = synced(op);
        } else {
            row.time = by_root(op);
        }
        long all_errors = 0;
        MPI_Allreduce(&errors_, &all_errors, 1, MPI_LONG, MPI_SUM, ctx_.comm());
        if (errors_)
            std::fprintf(stderr, "gridcoll-bench: rank %d: %s: %ld wrong result(s); first: %s\n", ctx_.rank(),
                         to_string(op).c_str(), errors_, first_error_.c_str());
        row.op = std::move(op);
        row.op.topology = nullptr;
        row.verified = !batch_.verify ? "no" : all_errors ? "FAILED" : "yes";
        row.choice = d.choice;
        row.timing = std::string(to_string(batch_.timing));
        return row;
    }

private:
    // One call's buffers, schedule and data at this rank.
    struct Call {
        Request req;
        BufferSizes sizes;
        const BuiltSchedule* plan = nullptr;  // null: the MPI library's own collective
        Buffers bufs;
        DataSpec data;
    };

    Call prepare(const Operation& op, int root, int rep) {
        Call c;
        c.req = op.request(ctx_.rank(), root);
        c.sizes = buffer_sizes(c.req);
        if (op.method.algorithm != kNativeMethod) c.plan = &ctx_.schedule(op, root);
        const std::uint64_t tmp = c.plan ? c.plan->schedule.tmp_bytes() : 0;
        c.bufs = Buffers{mem_.get(0, c.sizes.in), mem_.get(1, c.sizes.out), mem_.get(2, tmp)};
        c.data = DataSpec{op.coll, ctx_.size(), root, c.req.bytes, op.type, op.op, rep + batch_.warmup, c.req.counts};
        if (batch_.verify) fill_inputs(c.data, ctx_.rank(), c.bufs.in, c.sizes.in, c.bufs.out, c.sizes.out);
        return c;
    }

    void call(const Operation& op, const Call& c) {
        if (!c.plan) run_native(c.req, c.bufs, op.type, op.op, ctx_.comm());
        else exec_.run(*c.plan, c.bufs, op.type, op.op);
    }

    void check(const Call& c) {
        if (ctx_.rank() == settings_.inject_error && c.sizes.out > 0) c.bufs.out[c.sizes.out / 2] ^= std::byte{0x5A};
        if (!batch_.verify) return;
        const std::string e = verify_output(c.data, ctx_.rank(), c.bufs.out, c.sizes.out);
        if (!e.empty() && errors_++ == 0) first_error_ = e;
    }

    // Papers 001 (Figure 6) and 002 (6.1): per repetition, an acknowledgement barrier, then the
    // root's clock until every rank has reported completion; every rank takes its turn as root
    // unless one is given. The summary is over the repetitions.
    TimeSummary by_root(const Operation& op) {
        const int rank = ctx_.rank(), size = ctx_.size();
        std::vector<double> mine(static_cast<std::size_t>(batch_.reps), 0.0);
        for (int rep = -batch_.warmup; rep < batch_.reps; ++rep) {
            const int root = op.root != kEveryRoot ? op.root : (rep < 0 ? 0 : rep % size);
            const Call c = prepare(op, root, rep);
            ack_barrier(ctx_.comm(), rank, size, root, reqs_);
            const double t0 = mpi::undilated_wtime();
            call(op, c);
            gather_reports(ctx_.comm(), rank, size, root, kReportTag, reqs_);
            const double t1 = mpi::undilated_wtime();
            if (rep >= 0 && rank == root) mine[static_cast<std::size_t>(rep)] = t1 - t0;
            check(c);
        }
        // Rank 0 collects every repetition's time (taken at its root).
        std::vector<double> times(mine.size());
        MPI_Reduce(mine.data(), times.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, 0, ctx_.comm());
        return summarize(std::move(times));
    }

    // As the OSU micro-benchmarks time a collective: the warm-up calls (each verified), the ranks
    // lined up, then every rank's own clock around `reps` calls back to back; the last call is
    // verified too (every call has the same inputs). The summary is over the ranks: the average
    // of their per-call times, and the extremes.
    TimeSummary per_rank(const Operation& op) {
        const int rank = ctx_.rank(), size = ctx_.size();
        for (int rep = -batch_.warmup; rep < 0; ++rep) {
            const Call c = prepare(op, op.root, rep);
            call(op, c);
            check(c);
        }
        const Call c = prepare(op, op.root, 0);
        ack_barrier(ctx_.comm(), rank, size, op.root, reqs_);
        const double t0 = mpi::undilated_wtime();
        for (int i = 0; i < batch_.reps; ++i) call(op, c);
        const double mine = (mpi::undilated_wtime() - t0) / batch_.reps;
        check(c);
        double lo = 0, hi = 0, sum = 0;
        MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, ctx_.comm());
        MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, ctx_.comm());
        MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, ctx_.comm());
        return TimeSummary{sum / size, lo, hi};
    }

#ifdef GRIDCOLL_SMPI
    // Simulated time, which every rank reads from one clock: per repetition the acknowledgement
    // barrier, then rank 0 names a start kSyncLead after its release (simulated sleep costs
    // nothing), every rank sleeps until it and calls, and the time is the last rank's end less
    // the start: the collective alone, from a simultaneous start, without the release's skew or
    // the report's latency that the root's clock counts.
    TimeSummary synced(const Operation& op) {
        constexpr double kSyncLead = 10.0;  // s: more than any release takes
        const int rank = ctx_.rank(), size = ctx_.size();
        std::vector<double> times(static_cast<std::size_t>(batch_.reps), 0.0);
        for (int rep = -batch_.warmup; rep < batch_.reps; ++rep) {
            const int root = op.root != kEveryRoot ? op.root : (rep < 0 ? 0 : rep % size);
            const Call c = prepare(op, root, rep);
            ack_barrier(ctx_.comm(), rank, size, 0, reqs_);
            double start = MPI_Wtime() + kSyncLead;
            MPI_Bcast(&start, 1, MPI_DOUBLE, 0, ctx_.comm());
            sg_actor_sleep_until(start);  // (a rank already past it, on a release slower than 10 s, starts late)
            call(op, c);
            const double end = MPI_Wtime();
            double last = 0;
            MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, ctx_.comm());
            if (rep >= 0) times[static_cast<std::size_t>(rep)] = last - start;
            check(c);
        }
        return summarize(std::move(times));
    }
#else
    TimeSummary synced(const Operation&) { throw Error("sync timing reads one clock at every rank: SMPI only"); }
#endif

private:
    CommContext& ctx_;
    const Batch& batch_;
    const MpiBenchSettings& settings_;
    Memory& mem_;
    Executor exec_;
    std::vector<MPI_Request> reqs_;
    long errors_ = 0;
    std::string first_error_;
};

}  // namespace

std::string MpiBackend::name() const {
#ifdef GRIDCOLL_SMPI
    return "smpi";
#else
    return "openmpi";
#endif
}

void MpiBackend::check(const Batch& batch) const {
    if (batch.shape.ranks != ctx_.size())
        throw Error("the batch is for " + std::to_string(batch.shape.ranks) + " ranks, the communicator has " +
                    std::to_string(ctx_.size()));
    if (batch.shape.topology != ctx_.topology()) throw Error("the batch's topology is not the communicator's");
    validate(batch);
#ifndef GRIDCOLL_SMPI
    if (settings_.shared_malloc) throw Error("shared malloc needs the SMPI backend (gridcoll-bench-smpi)");
    if (batch.timing == Timing::Sync)
        throw Error("sync timing reads one clock at every rank: the SMPI backend or the event simulator");
#endif
    if (settings_.shared_malloc && batch.verify) throw Error("shared malloc folds buffers: results cannot be verified");
}

void MpiBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    Memory mem(settings_.shared_malloc);
    Point point(ctx_, batch, settings_, mem);
    for (const Operation& op : batch.operations()) {
        ResultRow row = point.measure(op);
        row.backend = name();
        if (ctx_.rank() == 0) sink(row);
    }
}

}  // namespace gridcoll
