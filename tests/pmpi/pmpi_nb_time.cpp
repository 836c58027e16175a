// pmpi_nb_time: under SMPI, a non-blocking broadcast waited for at once must take the simulated
// time of the blocking one, and so must a blocking one while a small non-blocking broadcast is
// pending. Each rank times MPI_Bcast, MPI_Ibcast + MPI_Wait, and MPI_Bcast beside a pending
// 1-byte MPI_Ibcast, of the same bytes (each between barriers, twice, the second counted); rank 0
// prints them and fails when either of the last two takes more than 2 % longer than the first. Waiting by testing did: SimGrid charges every
// failed MPI_Test a growing simulated time, and a 4 MiB broadcast took 9 times as long.
//
//   pmpi_nb_time [bytes]      (default 4 MiB)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int bytes = argc > 1 ? std::atoi(argv[1]) : 4 << 20;
    std::vector<char> buf(static_cast<std::size_t>(bytes > 0 ? bytes : 1), 1);
    double blocking = 0, nonblocking = 0, beside = 0;
    char small = 0;
    for (int round = 0; round < 2; ++round) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Bcast(buf.data(), bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t1 = MPI_Wtime();
        MPI_Request request;
        MPI_Ibcast(buf.data(), bytes, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t2 = MPI_Wtime();
        MPI_Ibcast(&small, 1, MPI_CHAR, 0, MPI_COMM_WORLD, &request);  // pending beside the next
        MPI_Bcast(buf.data(), bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t3 = MPI_Wtime();
        blocking = t1 - t0;
        nonblocking = t2 - t1;
        beside = t3 - t2;
    }
    const bool ok = nonblocking <= 1.02 * blocking && beside <= 1.02 * blocking;
    if (rank == 0)
        std::printf("pmpi_nb_time: %d bytes: blocking %.6f s, non-blocking %.6f s (%.3fx), blocking beside a pending "
                    "one %.6f s (%.3fx): %s\n",
                    bytes, blocking, nonblocking, nonblocking / blocking, beside, beside / blocking,
                    ok ? "passed" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
