// pmpi_blocked: a blocking collective while a non-blocking one is pending, which must still move
// on (MPI's progress rule), progress thread or not. Ranks 0 to 2 start a broadcast A rooted at
// rank 0 and then wait in a blocking broadcast B rooted at rank 3; rank 3 starts A, waits for it,
// and only then roots B. A reaches rank 3 through another rank (it is the last of a binomial
// tree from rank 0), so A finishes only if that rank advances it from inside B. A library that
// advanced pending operations only in the program's waits and tests would hang here (the test's
// timeout). 4 ranks or more; prints "pmpi_blocked: passed on R ranks" and exits 0. With the
// argument `exit`, every rank then leaves by exit(3) without MPI_Finalize, as programs do on
// their error paths: it must end with that status, not abort (a progress thread still running).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4) {
        if (rank == 0) std::fprintf(stderr, "pmpi_blocked: needs 4 or more ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    constexpr int kInts = 8, kLast = 3;
    int a[kInts], b[kInts];
    for (int j = 0; j < kInts; ++j) {
        a[j] = rank == 0 ? 100 + j : -1;
        b[j] = rank == kLast ? 200 + j : -1;
    }
    MPI_Request request;
    MPI_Ibcast(a, kInts, MPI_INT, 0, MPI_COMM_WORLD, &request);
    if (rank == kLast) MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Bcast(b, kInts, MPI_INT, kLast, MPI_COMM_WORLD);
    if (rank != kLast) MPI_Wait(&request, MPI_STATUS_IGNORE);
    int wrong = 0;
    for (int j = 0; j < kInts; ++j) wrong += (a[j] != 100 + j) + (b[j] != 200 + j);
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: %d wrong elements\n", rank, wrong);
    int all = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) std::printf("pmpi_blocked: passed on %d ranks\n", size);
    std::fflush(stdout);
    if (argc > 1 && std::strcmp(argv[1], "exit") == 0) std::exit(3);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
