// pmpi_nb_time: under SMPI, a non-blocking broadcast waited for must take the simulated time of
// the blocking one. Each rank times, for the same bytes (each case between barriers, twice, the
// second counted): MPI_Bcast; MPI_Ibcast + MPI_Wait; MPI_Bcast beside a pending 1-byte
// MPI_Ibcast; that pair of broadcasts both non-blocking, completed by MPI_Waitany, and again by
// MPI_Waitsome. Rank 0 prints them and fails when any case takes more than 2 % longer than the
// blocking one. Waiting by testing did: SimGrid charges every failed MPI_Test a growing
// simulated time, and a 4 MiB broadcast took 9 times as long.
//
//   pmpi_nb_time [bytes]      (default 4 MiB)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Buffers {
    std::vector<char> big;
    int bytes;
    char small = 0;
};

void blocking(Buffers& b) { MPI_Bcast(b.big.data(), b.bytes, MPI_CHAR, 0, MPI_COMM_WORLD); }

void nonblocking(Buffers& b) {
    MPI_Request request;
    MPI_Ibcast(b.big.data(), b.bytes, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

void beside(Buffers& b) {
    MPI_Request request;
    MPI_Ibcast(&b.small, 1, MPI_CHAR, 0, MPI_COMM_WORLD, &request);  // pending beside the next
    MPI_Bcast(b.big.data(), b.bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

void start_pair(Buffers& b, MPI_Request two[2]) {
    MPI_Ibcast(&b.small, 1, MPI_CHAR, 0, MPI_COMM_WORLD, &two[0]);
    MPI_Ibcast(b.big.data(), b.bytes, MPI_CHAR, 0, MPI_COMM_WORLD, &two[1]);
}

void by_waitany(Buffers& b) {
    MPI_Request two[2];
    start_pair(b, two);
    for (int done = 0; done < 2; ++done) {
        int index = MPI_UNDEFINED;
        MPI_Waitany(2, two, &index, MPI_STATUS_IGNORE);
        if (index == MPI_UNDEFINED) std::abort();  // two were active
    }
}

void by_waitsome(Buffers& b) {
    MPI_Request two[2];
    start_pair(b, two);
    for (int done = 0; done < 2;) {
        int count = 0, indices[2];
        MPI_Waitsome(2, two, &count, indices, MPI_STATUSES_IGNORE);
        if (count == MPI_UNDEFINED || count < 1) std::abort();
        done += count;
    }
}

struct Case {
    const char* name;
    void (*run)(Buffers&);
    double seconds;
};

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Buffers b;
    b.bytes = argc > 1 ? std::atoi(argv[1]) : 4 << 20;
    b.big.assign(static_cast<std::size_t>(b.bytes > 0 ? b.bytes : 1), 1);
    Case cases[] = {{"blocking", blocking, 0},
                    {"non-blocking", nonblocking, 0},
                    {"blocking beside a pending one", beside, 0},
                    {"two non-blocking by MPI_Waitany", by_waitany, 0},
                    {"two non-blocking by MPI_Waitsome", by_waitsome, 0}};
    for (int round = 0; round < 2; ++round)
        for (Case& c : cases) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            c.run(b);
            MPI_Barrier(MPI_COMM_WORLD);
            c.seconds = MPI_Wtime() - t0;
        }
    bool ok = true;
    if (rank == 0) std::printf("pmpi_nb_time: %d bytes: blocking %.6f s", b.bytes, cases[0].seconds);
    for (const Case& c : cases) {
        if (c.run == blocking) continue;
        const double ratio = c.seconds / cases[0].seconds;
        ok = ok && ratio <= 1.02;
        if (rank == 0) std::printf(", %s %.6f s (%.3fx)", c.name, c.seconds, ratio);
    }
    if (rank == 0) std::printf(": %s\n", ok ? "passed" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
