#include "gridcoll/runtime/bench.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gridcoll/runtime/data_pattern.hpp"
#include "gridcoll/runtime/native.hpp"

#ifdef GRIDCOLL_SMPI
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
        const bool native = op.method.algorithm == kNativeMethod;
        const int rank = ctx_.rank(), size = ctx_.size();
        std::vector<double> mine(static_cast<std::size_t>(batch_.reps), 0.0);
        long errors = 0;
        std::string first_error;
        for (int rep = -batch_.warmup; rep < batch_.reps; ++rep) {
            const int root = op.root != kEveryRoot ? op.root : (rep < 0 ? 0 : rep % size);
            const Request req = op.request(rank, root);
            const BufferSizes bs = buffer_sizes(req);
            const BuiltSchedule* plan = native ? nullptr : &ctx_.schedule(op, root);
            const std::uint64_t tmp = plan ? plan->schedule.tmp_bytes() : 0;
            const Buffers b{mem_.get(0, bs.in), mem_.get(1, bs.out), mem_.get(2, tmp)};
            const DataSpec ds{op.coll, size, root, req.bytes, op.type, op.op, rep + batch_.warmup};
            if (batch_.verify) fill_inputs(ds, rank, b.in, bs.in, b.out, bs.out);

            ack_barrier(ctx_.comm(), rank, size, root, reqs_);
            const double t0 = MPI_Wtime();
            if (native) run_native(req, b, op.type, op.op, ctx_.comm());
            else exec_.run(*plan, b, op.type, op.op);
            gather_reports(ctx_.comm(), rank, size, root, kReportTag, reqs_);
            const double t1 = MPI_Wtime();
            if (rep >= 0 && rank == root) mine[static_cast<std::size_t>(rep)] = t1 - t0;

            if (rank == settings_.inject_error && bs.out > 0) b.out[bs.out / 2] ^= std::byte{0x5A};
            if (batch_.verify) {
                const std::string e = verify_output(ds, rank, b.out, bs.out);
                if (!e.empty() && errors++ == 0) first_error = e;
            }
        }
        // Rank 0 collects every repetition's time (taken at its root) and the error count.
        std::vector<double> times(mine.size());
        MPI_Reduce(mine.data(), times.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, 0, ctx_.comm());
        long all_errors = 0;
        MPI_Allreduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, ctx_.comm());
        if (errors)
            std::fprintf(stderr, "gridcoll-bench: rank %d: %s: %ld wrong result(s); first: %s\n", rank, to_string(op).c_str(),
                         errors, first_error.c_str());
        ResultRow row;
        row.op = std::move(op);
        row.op.topology = nullptr;
        row.reps = batch_.reps;
        row.time = summarize(std::move(times));
        row.verified = !batch_.verify ? "no" : all_errors ? "FAILED" : "yes";
        row.choice = d.choice;
        return row;
    }

private:
    CommContext& ctx_;
    const Batch& batch_;
    const MpiBenchSettings& settings_;
    Memory& mem_;
    Executor exec_;
    std::vector<MPI_Request> reqs_;
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
