// gridcoll-bench: times collective algorithms on the MPI it is built against (Open MPI, or
// SimGrid SMPI for gridcoll-bench-smpi — the same source).
//
// Method (paper 001 Figure 6, paper 002 §6.1): before each operation an acknowledgement barrier
// (every rank sends ACK to the root, the root answers GO) lines the ranks up; the root starts
// its clock, runs the operation, and stops the clock when every other rank has reported
// completion with a zero-byte message. Operations therefore never pipeline. With
// --rotate-root (the default) every rank takes its turn as root. The row reports the median
// (time_s) and the minimum over the repetitions. Every operation's result is verified at every
// rank (unless --no-verify); a mismatch makes the program exit with status 1.
//
// --algorithm auto picks the method per message size and communicator size as an MPI library
// would: from a decision rules file (--rules FILE, algorithms/model/README.md), else the fixed
// default (binomial / the registry's first). Its rows say what ran: algorithm "auto:<name>"
// with the chosen segment and fan-out.
#include <mpi.h>

#ifdef GRIDCOLL_SMPI
#undef exit  // smpi_helpers.h turns exit(x) into a macro, which breaks CLI::App::exit
#endif
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gridcoll/text.hpp"
#include "data_pattern.hpp"
#include "executor.hpp"
#include "gridcoll/model/rules.hpp"
#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"
#include "native.hpp"

#ifdef GRIDCOLL_SMPI
#include <smpi/smpi.h>
static const char* const kBackend = "smpi";
#else
static const char* const kBackend = "openmpi";
#endif

namespace {

using namespace gridcoll;

// Distinct tags: a fast rank's next-barrier ACK must never count as another rank's report.
constexpr int kAckTag = 9001;
constexpr int kGoTag = 9002;
constexpr int kReportTag = 9003;

struct Options {
    std::string collective = "bcast";
    std::string algorithm = "binomial";
    std::string rules;  // decision rules file for --algorithm auto
    std::string bytes = "8,1K,64K,1M";
    std::string segment = "0";
    int fanout = 2;
    int reps = 10;
    int warmup = 1;
    int root = -1;  // -1: rotate
    std::string type = "int32";
    std::string op = "sum";
    bool verify = true;
    bool shared_malloc = false;
    bool header = true;
    bool list = false;
    int inject_error = -1;  // testing: corrupt one output byte at this rank after each operation
};

// One rank's buffers, optionally SMPI shared (contents meaningless, memory folded).
class Memory {
public:
    explicit Memory(bool shared) : shared_(shared) {}
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;
    ~Memory() { release(); }
    std::byte* get(int which, std::uint64_t bytes) {
        auto& slot = slots_[which];
        if (slot.size >= bytes && slot.ptr) return slot.ptr;
        free_slot(slot);
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
    void free_slot(Slot& s) {
        if (!s.ptr) return;
#ifdef GRIDCOLL_SMPI
        if (shared_) SMPI_SHARED_FREE(s.ptr);
        else ::operator delete(s.ptr);
#else
        ::operator delete(s.ptr);
#endif
        s.ptr = nullptr;
        s.size = 0;
    }
    void release() {
        for (auto& s : slots_) free_slot(s);
    }
    bool shared_;
    Slot slots_[3];
};

// The root waits for a zero-byte message with `tag` from every other rank. All receives are
// posted at once, so the reports travel in parallel (as a real network would carry them).
void gather_reports(int rank, int size, int root, int tag, std::vector<MPI_Request>& reqs) {
    if (rank != root) {
        MPI_Send(nullptr, 0, MPI_BYTE, root, tag, MPI_COMM_WORLD);
        return;
    }
    reqs.clear();
    for (int r = 0; r < size; ++r) {
        if (r == root) continue;
        reqs.emplace_back();
        MPI_Irecv(nullptr, 0, MPI_BYTE, r, tag, MPI_COMM_WORLD, &reqs.back());
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

// Paper 001's ack_barrier: everyone reports to `root`, then `root` releases everyone.
void ack_barrier(int rank, int size, int root, std::vector<MPI_Request>& reqs) {
    gather_reports(rank, size, root, kAckTag, reqs);
    if (rank != root) {
        MPI_Recv(nullptr, 0, MPI_BYTE, root, kGoTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
    }
    reqs.clear();
    for (int r = 0; r < size; ++r) {
        if (r == root) continue;
        reqs.emplace_back();
        MPI_Isend(nullptr, 0, MPI_BYTE, r, kGoTag, MPI_COMM_WORLD, &reqs.back());
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

struct Row {
    std::vector<double> times;  // at rank 0: per repetition, measured at that repetition's root
    long errors = 0;
};

class Bench {
public:
    Bench(const Options& o, int rank, int size) : o_(o), rank_(rank), size_(size), mem_(o.shared_malloc) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
        coll_ = parse_collective(o.collective);
        type_ = parse_elem_type(o.type);
        op_ = parse_reduce_op(o.op);
        segment_ = parse_bytes(o.segment);
        sizes_ = parse_byte_list(o.bytes);
        if (o.reps < 1) throw Error("--reps must be >= 1 (got " + std::to_string(o.reps) + ")");
        if (o.root >= size) throw Error("--root " + std::to_string(o.root) + " out of range for " + std::to_string(size) + " ranks");
        if (o.algorithm == "all") {
            for (const Algorithm* a : algorithms_for(coll_)) algorithms_.push_back(a->name);
            algorithms_.push_back("native");
        } else {
            algorithms_ = split_list(o.algorithm);
            for (const auto& a : algorithms_)
                if (a != "native" && a != "auto") find_algorithm(coll_, a);  // throws listing the valid names
        }
        const bool automatic = std::find(algorithms_.begin(), algorithms_.end(), "auto") != algorithms_.end();
        if (!o.rules.empty()) {
            if (!automatic) throw Error("--rules " + o.rules + " needs --algorithm auto");
            rules_ = model::load_rules(o.rules);  // errors name file:line
        }
        const std::size_t es = is_reduction(coll_) ? elem_size(type_) : 1;
        for (auto b : sizes_)
            if (b % es)
                throw Error("message size " + std::to_string(b) + " is not a multiple of the " + std::string(to_string(type_)) +
                            " element size " + std::to_string(es));
    }
    ~Bench() { MPI_Comm_free(&comm_); }

    int run() {
        if (rank_ == 0 && o_.header)
            std::printf("backend,collective,algorithm,ranks,bytes,segment,fanout,root,reps,time_s,min_s,max_s,verified\n");
        long total_errors = 0;
        for (const auto& alg : algorithms_)
            for (auto bytes : sizes_) total_errors += measure(alg, bytes);
        return total_errors ? 1 : 0;
    }

private:
    Request request(std::uint64_t bytes, int root, const MethodParams& params) const {
        Request r;
        r.coll = coll_;
        r.size = size_;
        r.rank = rank_;
        r.root = root;
        r.bytes = coll_ == Collective::Barrier ? 0 : bytes;
        r.elem = is_reduction(coll_) ? elem_size(type_) : 1;
        r.params = params;
        return r;
    }

    int root_of(int rep) const { return o_.root >= 0 ? o_.root : (rep < 0 ? 0 : rep % size_); }

    long measure(const std::string& requested, std::uint64_t bytes) {
        const bool native = requested == "native";
        // The method: as given on the command line, or (auto) the rules' choice for (P, m).
        std::string alg = requested, label = requested;
        MethodParams params;
        params.segment = segment_;
        params.fanout = o_.fanout;
        if (requested == "auto") {
            const model::Method& m = rules_.lookup(coll_, size_, coll_ == Collective::Barrier ? 0 : bytes);
            alg = m.algorithm;
            label = "auto:" + m.algorithm;
            params = m.params;
        }
        std::map<int, std::unique_ptr<BuiltSchedule>> plans;  // per root, built outside the timed region
        std::vector<double> mine(static_cast<std::size_t>(o_.reps), 0.0);
        long errors = 0;
        std::string first_error;
        Executor exec(comm_);
        for (int rep = -o_.warmup; rep < o_.reps; ++rep) {
            const int root = root_of(rep);
            const Request req = request(bytes, root, params);
            const BufferSizes bs = buffer_sizes(req);
            const BuiltSchedule* plan = nullptr;
            std::uint64_t tmp = 0;
            if (!native) {
                auto& p = plans[root];
                if (!p) p = std::make_unique<BuiltSchedule>(build_schedule(req, alg));
                plan = p.get();
                tmp = plan->schedule.tmp_bytes();
            }
            Buffers b{mem_.get(0, bs.in), mem_.get(1, bs.out), mem_.get(2, tmp)};
            const DataSpec ds{coll_, size_, root, req.bytes, type_, op_, rep + o_.warmup};
            if (o_.verify) fill_inputs(ds, rank_, b.in, bs.in, b.out, bs.out);

            ack_barrier(rank_, size_, root, reqs_);
            const double t0 = MPI_Wtime();
            if (native) run_native(req, b, type_, op_, comm_);
            else exec.run(*plan, b, type_, op_);
            gather_reports(rank_, size_, root, kReportTag, reqs_);
            const double t1 = MPI_Wtime();
            if (rep >= 0 && rank_ == root) mine[static_cast<std::size_t>(rep)] = t1 - t0;

            if (rank_ == o_.inject_error && bs.out > 0) b.out[bs.out / 2] ^= std::byte{0x5A};
            if (o_.verify) {
                const std::string e = verify_output(ds, rank_, b.out, bs.out);
                if (!e.empty()) {
                    if (errors++ == 0) first_error = e;
                }
            }
        }
        // Rank 0 collects every repetition's time (taken at its root) and the error count.
        std::vector<double> times(mine.size());
        MPI_Reduce(mine.data(), times.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        long all_errors = 0;
        MPI_Allreduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (errors)
            std::fprintf(stderr, "gridcoll-bench: %s %s %llu bytes: %ld wrong result(s); first: %s\n", to_string(coll_).data(),
                         label.c_str(), static_cast<unsigned long long>(bytes), errors, first_error.c_str());
        if (rank_ == 0) {
            std::sort(times.begin(), times.end());
            const std::size_t n = times.size();
            const double median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
            const std::string root = o_.root >= 0 ? std::to_string(o_.root) : "rotate";
            std::printf("%s,%s,%s,%d,%llu,%llu,%d,%s,%d,%.9g,%.9g,%.9g,%s\n", kBackend, to_string(coll_).data(), label.c_str(), size_,
                        static_cast<unsigned long long>(coll_ == Collective::Barrier ? 0 : bytes),
                        static_cast<unsigned long long>(native ? 0 : params.segment), native ? 0 : params.fanout, root.c_str(), o_.reps,
                        median, times.front(), times.back(), !o_.verify ? "no" : all_errors ? "FAILED" : "yes");
            std::fflush(stdout);
        }
        return all_errors;
    }

    const Options& o_;
    int rank_, size_;
    Memory mem_;
    MPI_Comm comm_;
    Collective coll_;
    ElemType type_;
    ReduceOp op_;
    std::uint64_t segment_ = 0;
    std::vector<std::uint64_t> sizes_;
    std::vector<std::string> algorithms_;
    model::Rules rules_;  // --algorithm auto: empty = the fixed defaults
    std::vector<MPI_Request> reqs_;
};

void list_algorithms() {
    for (Collective c : all_collectives()) {
        std::printf("%s:\n", to_string(c).data());
        for (const Algorithm* a : algorithms_for(c))
            std::printf("  %-20s %s%s%s\n", a->name.c_str(), a->description.c_str(), a->segmented ? " [segment]" : "",
                        a->uses_fanout ? " [fanout]" : "");
        std::printf("  %-20s the MPI library's own implementation\n", "native");
    }
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    Options o;
    CLI::App app{std::string("gridcoll-bench (") + kBackend + "): time and verify collective algorithms"};
    app.add_option("-c,--collective", o.collective, "barrier, bcast, reduce, allreduce, scan, scatter, gather, allgather, alltoall")
        ->capture_default_str();
    app.add_option("-a,--algorithm", o.algorithm, "algorithm name(s), comma-separated; 'native' = the MPI library's; 'all'; "
                   "'auto' = chosen per size by --rules (else the fixed default)")
        ->capture_default_str();
    app.add_option("-b,--bytes", o.bytes, "message sizes, e.g. 8,1K,64KiB,4M (per-rank block for scatter/gather/allgather/alltoall)")
        ->capture_default_str();
    app.add_option("--rules", o.rules, "decision rules file for --algorithm auto (algorithms/model/README.md)");
    app.add_option("-s,--segment", o.segment, "segment size in bytes (0 = no segmentation)")->capture_default_str();
    app.add_option("-k,--fanout", o.fanout, "fan-out of k-ary trees / number of chains")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("-r,--reps", o.reps, "timed repetitions per size")->capture_default_str();
    app.add_option("--warmup", o.warmup, "untimed repetitions first")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--root", o.root, "fixed root rank (default: every rank takes its turn)");
    app.add_option("--type", o.type, "element type of reductions: int32, int64, float, double")->capture_default_str();
    app.add_option("--op", o.op, "reduction: sum, prod, min, max")->capture_default_str();
    app.add_flag("!--no-verify", o.verify, "do not check results");
    app.add_flag("--shared-malloc", o.shared_malloc, "SMPI only: fold buffers with SMPI_SHARED_MALLOC (implies --no-verify)");
    app.add_flag("!--no-header", o.header, "do not print the CSV header");
    app.add_flag("--list", o.list, "list the algorithms and exit");
    app.add_option("--inject-error", o.inject_error, "testing: corrupt one output byte at this rank (verification must fail)");

    int status = 0;
    try {
        app.parse(argc, argv);
        if (o.list) {
            if (rank == 0) list_algorithms();
        } else {
#ifndef GRIDCOLL_SMPI
            if (o.shared_malloc) throw Error("--shared-malloc needs the SMPI backend (gridcoll-bench-smpi)");
#endif
            if (o.shared_malloc) o.verify = false;
            Bench bench(o, rank, size);
            status = bench.run();
        }
    } catch (const CLI::ParseError& e) {
        if (rank == 0) status = app.exit(e);
        else status = e.get_exit_code();
    } catch (const std::exception& e) {
        if (rank == 0) std::fprintf(stderr, "gridcoll-bench: error: %s\n", e.what());
        status = 2;
    }
    MPI_Finalize();
    return status;
}
