// pmpi_nb_time: under SMPI, a non-blocking broadcast waited for must take the simulated time of
// the blocking one. Each rank times, for the same bytes (each case between barriers, twice, the
// second counted): MPI_Bcast; MPI_Ibcast + MPI_Wait; MPI_Bcast beside a pending 1-byte
// MPI_Ibcast; that pair of broadcasts both non-blocking, completed by MPI_Waitany, and again by
// MPI_Waitsome; the broadcast beside the program's own ring exchange of one int, all waited for
// by one MPI_Waitall, by MPI_Waitany, by MPI_Waitsome, and by MPI_Wait each (the receive's status
// checked). Rank 0 prints them and fails when any case takes more than 2 % longer than the
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

// The broadcast beside the program's own ring exchange of one int (received into `in`).
void start_with_point_to_point(Buffers& b, MPI_Request three[3], const int* out, int* in) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Ibcast(b.big.data(), b.bytes, MPI_CHAR, 0, MPI_COMM_WORLD, &three[0]);
    MPI_Irecv(in, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &three[1]);
    MPI_Isend(out, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &three[2]);
}

// The value the ring exchange must have brought.
void check_ring(int in) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (in != (rank + size - 1) % size) std::abort();
}

// The receive's status: from the rank before, tag 7.
void check_receive(const MPI_Status& status) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (status.MPI_SOURCE != (rank + size - 1) % size || status.MPI_TAG != 7) std::abort();
}

void with_point_to_point_waitall(Buffers& b) {
    MPI_Request three[3];
    int out = 0, in = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &out);
    start_with_point_to_point(b, three, &out, &in);
    MPI_Status statuses[3];
    MPI_Waitall(3, three, statuses);
    check_receive(statuses[1]);  // the receive's status survives the wait
    check_ring(in);
}

void with_point_to_point_waitany(Buffers& b) {
    MPI_Request three[3];
    int out = 0, in = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &out);
    start_with_point_to_point(b, three, &out, &in);
    for (int done = 0; done < 3; ++done) {
        int index = MPI_UNDEFINED;
        MPI_Status status;
        MPI_Waitany(3, three, &index, &status);
        if (index == MPI_UNDEFINED || three[index] != MPI_REQUEST_NULL) std::abort();
        if (index == 1) check_receive(status);
    }
    check_ring(in);
}

void with_point_to_point_waitsome(Buffers& b) {
    MPI_Request three[3];
    int out = 0, in = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &out);
    start_with_point_to_point(b, three, &out, &in);
    for (int done = 0; done < 3;) {
        int count = 0, indices[3];
        MPI_Status statuses[3];
        MPI_Waitsome(3, three, &count, indices, statuses);
        if (count == MPI_UNDEFINED || count < 1 || done + count > 3) std::abort();
        for (int k = 0; k < count; ++k) {
            if (three[indices[k]] != MPI_REQUEST_NULL) std::abort();
            if (indices[k] == 1) check_receive(statuses[k]);
        }
        done += count;
    }
    check_ring(in);
}

void with_point_to_point_wait(Buffers& b) {
    MPI_Request three[3];
    int out = 0, in = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &out);
    start_with_point_to_point(b, three, &out, &in);
    MPI_Wait(&three[1], MPI_STATUS_IGNORE);  // while the broadcast is pending
    check_ring(in);
    MPI_Wait(&three[2], MPI_STATUS_IGNORE);
    MPI_Wait(&three[0], MPI_STATUS_IGNORE);
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
                    {"two non-blocking by MPI_Waitsome", by_waitsome, 0},
                    {"beside point-to-point, one MPI_Waitall", with_point_to_point_waitall, 0},
                    {"beside point-to-point, MPI_Waitany", with_point_to_point_waitany, 0},
                    {"beside point-to-point, MPI_Waitsome", with_point_to_point_waitsome, 0},
                    {"beside point-to-point, MPI_Wait each", with_point_to_point_wait, 0}};
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
