// pmpi_progress: does a non-blocking collective move on while the program computes without
// calling MPI? Every rank starts MPI_Iallreduce (sum of rank+1 over doubles) and MPI_Ibcast
// (root 0's pattern), then stays out of MPI, watching its output buffers, until every element
// holds the final value or `limit` seconds pass; then it waits for both requests and checks the
// results. Rank 0 prints one line per collective:
//   pmpi_progress: MPI_Iallreduce done-without-mpi=yes|no (N ranks)
// and exits non-zero on a wrong result. With a progress thread (the PMPI library's progress=auto
// with a rank map) both say yes; with progress in calls only, a schedule of several steps stays
// at its first step until the program enters MPI, and they say no.
//
//   pmpi_progress [elements] [limit-seconds]
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// Watches `buf` without any MPI call until every element equals `want` or the limit passes.
bool filled_without_mpi(const std::vector<double>& buf, double want, double limit_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    while (std::chrono::steady_clock::now() < until) {
        bool all = true;
        for (const double& v : buf)
            if (std::atomic_ref<double>(const_cast<double&>(v)).load(std::memory_order_acquire) != want) {
                all = false;
                break;
            }
        if (all) return true;
    }
    return false;
}

int report(const char* name, bool early, int ok_count, int n, int rank, int size) {
    int early_all = 0, ok_all = 0;
    int mine = early ? 1 : 0;
    MPI_Allreduce(&mine, &early_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&ok_count, &ok_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        std::printf("pmpi_progress: %s done-without-mpi=%s (%d ranks)\n", name, early_all ? "yes" : "no", size);
        if (ok_all != n) std::printf("pmpi_progress: %s WRONG RESULT\n", name);
    }
    return ok_all == n ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 17;
    const double limit = argc > 2 ? std::atof(argv[2]) : 20.0;
    std::vector<double> in(static_cast<std::size_t>(n), rank + 1.0), sum(static_cast<std::size_t>(n), 0.0);
    std::vector<double> bc(static_cast<std::size_t>(n), rank == 0 ? 7.0 : 0.0);
    const double total = size * (size + 1) / 2.0;
    int bad = 0;

    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iallreduce(in.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    bool early = filled_without_mpi(sum, total, limit);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int ok = 0;
    for (double v : sum) ok += v == total;
    bad |= report("MPI_Iallreduce", early, ok, n, rank, size);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Ibcast(bc.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r);
    early = filled_without_mpi(bc, 7.0, limit);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    ok = 0;
    for (double v : bc) ok += v == 7.0;
    bad |= report("MPI_Ibcast", early, ok, n, rank, size);

    MPI_Finalize();
    return bad;
}
