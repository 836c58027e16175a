// nb_overlap: how much of a non-blocking collective hides behind computation, measured the way
// the OSU micro-benchmarks' non-blocking collective tests do (osu_iallreduce, osu_ibcast): an
// ordinary MPI program, run with or without the PMPI library preloaded.
//
//   pure    = the collective started and waited for at once            (per call)
//   compute = a busy loop of `pure` seconds, no MPI call in it         (measured)
//   overall = start, compute, wait                                      (per call)
//   overlap = 100 (1 - (overall - compute) / pure), clamped to 0..100 %
//
// With --probes N the computation is cut into N pieces with an MPI_Test between them (OSU's -t
// option), which gives a library without a progress thread its chances to move the collective on.
// Times are the largest over the ranks. Rank 0 prints one CSV line per size:
//   collective,bytes,probes,pure_s,compute_s,overall_s,overlap_pct
//
//   nb_overlap -c iallreduce|ibcast [-b 8,1K,1M] [-i 5] [--probes 0]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Options {
    std::string coll = "iallreduce";
    std::vector<long> sizes{8, 1024, 1 << 20};
    int iters = 5;
    int probes = 0;
};

long parse_size(const std::string& t) {
    char* end = nullptr;
    long v = std::strtol(t.c_str(), &end, 10);
    const std::string unit = end ? end : "";
    if (unit == "K") v <<= 10;
    else if (unit == "M") v <<= 20;
    else if (!unit.empty()) v = -1;
    return v;
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "-c") o.coll = v;
        else if (k == "-i") o.iters = std::atoi(v.c_str());
        else if (k == "--probes") o.probes = std::atoi(v.c_str());
        else if (k == "-b") {
            o.sizes.clear();
            for (std::size_t at = 0; at <= v.size();) {
                const std::size_t comma = std::min(v.find(',', at), v.size());
                o.sizes.push_back(parse_size(v.substr(at, comma - at)));
                at = comma + 1;
            }
        } else return false;
    }
    return (argc % 2 == 1) && (o.coll == "iallreduce" || o.coll == "ibcast") && o.iters > 0 && o.probes >= 0 &&
           std::all_of(o.sizes.begin(), o.sizes.end(), [](long s) { return s >= 8 && s % 8 == 0; });
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Busy for `seconds` in `pieces` parts, an MPI_Test between parts when probing.
void compute(double seconds, int probes, MPI_Request* req) {
    const int pieces = probes + 1;
    for (int p = 0; p < pieces; ++p) {
        const double until = now() + seconds / pieces;
        volatile double x = 1.0;
        while (now() < until) x = x * 1.0000001 + 1e-9;
        if (p + 1 < pieces) {
            int flag = 0;
            MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        }
    }
}

struct Bufs {
    std::vector<double> in, out;
};

void start(const Options& o, Bufs& b, MPI_Request* req) {
    const int n = static_cast<int>(b.in.size());
    if (o.coll == "iallreduce") MPI_Iallreduce(b.in.data(), b.out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
    else MPI_Ibcast(b.out.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD, req);
}

double largest(double mine) {
    double all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

void measure(const Options& o, long bytes, int rank) {
    Bufs b{std::vector<double>(static_cast<std::size_t>(bytes / 8), 1.0), std::vector<double>(static_cast<std::size_t>(bytes / 8), 0.0)};
    MPI_Request req;
    start(o, b, &req);  // warm-up: connections, schedules
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    double pure = 0;
    for (int i = 0; i < o.iters; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        start(o, b, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        pure += now() - t0;
    }
    pure = largest(pure / o.iters);
    double overall = 0, busy = 0;
    for (int i = 0; i < o.iters; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        start(o, b, &req);
        const double c0 = now();
        compute(pure, o.probes, &req);
        busy += now() - c0;
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        overall += now() - t0;
    }
    overall = largest(overall / o.iters);
    busy = largest(busy / o.iters);
    const double overlap = std::clamp(100.0 * (1.0 - (overall - busy) / pure), 0.0, 100.0);
    if (rank == 0)
        std::printf("%s,%ld,%d,%.6f,%.6f,%.6f,%.1f\n", o.coll.c_str(), bytes, o.probes, pure, busy, overall, overlap);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Options o;
    if (!parse(argc, argv, o)) {
        if (rank == 0)
            std::fprintf(stderr, "usage: nb_overlap -c iallreduce|ibcast [-b 8,1K,1M (multiples of 8)] [-i N>0] [--probes N>=0]\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) std::printf("collective,bytes,probes,pure_s,compute_s,overall_s,overlap_pct\n");
    for (long s : o.sizes) measure(o, s, rank);
    MPI_Finalize();
    return 0;
}
