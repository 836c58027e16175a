// pmpi_many_comms [LIMIT]: duplicates MPI_COMM_WORLD until MPI refuses (errors returned, not
// fatal) or LIMIT communicators are held (default 4096), then checks that the last one works
// (a non-blocking and a blocking allreduce), frees them all and makes one more. Prints
// "pmpi_many_comms: N communicators held, passed on R ranks". With the gridcoll library, whose
// early duplicates take MPI context ids too, the count tells what a program can still hold
// (pmpi_tests_mpich.sh: MPICH's ids run out).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long limit = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 4096;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    std::vector<MPI_Comm> held;
    MPI_Comm c;
    while (static_cast<long>(held.size()) < limit && MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS) held.push_back(c);
    bool ok = !held.empty();
    if (ok) {
        int one = 1, sum = 0, again = 0;
        MPI_Request q;
        MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, held.back(), &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Allreduce(&one, &again, 1, MPI_INT, MPI_SUM, held.back());
        ok = sum == size && again == size;
    }
    for (MPI_Comm& h : held) MPI_Comm_free(&h);
    ok = ok && MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS;
    if (ok) MPI_Comm_free(&c);
    if (rank == 0)
        std::printf("pmpi_many_comms: %zu communicators held, %s on %d ranks\n", held.size(), ok ? "passed" : "FAILED", size);
    MPI_Finalize();
    return ok ? 0 : 1;
}
