// Messages beyond MPI's int count, through gridcoll's schedules: the v-collectives whose sizes
// only some ranks know (gatherv, scatterv, alltoallv) cannot hand a large call to MPI by an
// agreement, so the library runs them, whatever the size. Two ranks; rank 1's block is
//   contiguous: 560 M ints (2.24 GB, one message over INT_MAX bytes: a derived datatype),
//   spaced:     300 M ints 8 bytes apart (1.2 GB packed, 2.4 GB of extent: packed in runs).
// Each block is checked element by element. Usage: pmpi_large contiguous|spaced.
// Prints "pmpi_large: <layout> passed" on rank 0 when every rank's data is right.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct Layout {
    long n;          // ints in the block
    long stride;     // ints from one element to the next
    MPI_Datatype t;  // its datatype
};

int expected(long i, int salt) { return static_cast<int>(i * 7 + salt); }

void fill(std::vector<int>& x, const Layout& l, int salt) {
    for (long i = 0; i < l.n; ++i) x[static_cast<std::size_t>(i * l.stride)] = expected(i, salt);
}

long wrong(const std::vector<int>& x, const Layout& l, int salt) {
    long bad = 0;
    for (long i = 0; i < l.n; ++i) bad += x[static_cast<std::size_t>(i * l.stride)] != expected(i, salt);
    return bad;
}

// One buffer a rank: rank 1 sends it to rank 0 (gatherv), rank 0 sends it back (scatterv), then
// again rank 0 to rank 1 (alltoallv); the receiver checks each time.
long exchange(const Layout& l, int rank) {
    std::vector<int> x(static_cast<std::size_t>(l.n * l.stride), -1);
    const int n = static_cast<int>(l.n);
    int none[2] = {0, 0}, counts[2] = {0, n};
    long bad = 0;
    if (rank == 1) fill(x, l, 1);
    MPI_Gatherv(rank == 1 ? x.data() : MPI_IN_PLACE, rank == 1 ? n : 0, l.t, x.data(), counts, none, l.t, 0,
                MPI_COMM_WORLD);
    if (rank == 0) bad += wrong(x, l, 1), fill(x, l, 2);
    MPI_Scatterv(x.data(), counts, none, l.t, rank == 1 ? x.data() : MPI_IN_PLACE, rank == 1 ? n : 0, l.t, 0,
                 MPI_COMM_WORLD);
    if (rank == 1) bad += wrong(x, l, 2);
    if (rank == 0) fill(x, l, 3);
    int sends[2] = {0, rank == 0 ? n : 0}, receives[2] = {rank == 1 ? n : 0, 0}, unused = 0;
    MPI_Alltoallv(rank == 0 ? x.data() : &unused, sends, none, l.t, rank == 1 ? x.data() : &unused, receives, none,
                  l.t, MPI_COMM_WORLD);
    if (rank == 1) bad += wrong(x, l, 3);
    return bad;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bool spaced = argc > 1 && std::strcmp(argv[1], "spaced") == 0;
    if (size != 2 || argc < 2 || (!spaced && std::strcmp(argv[1], "contiguous") != 0)) {
        if (rank == 0) std::fprintf(stderr, "usage: mpirun -np 2 pmpi_large contiguous|spaced\n");
        MPI_Finalize();
        return 2;
    }
    Layout l{560000000, 1, MPI_INT};
    if (spaced) {
        l = {300000000, 2, MPI_DATATYPE_NULL};
        MPI_Type_create_resized(MPI_INT, 0, 8, &l.t);
        MPI_Type_commit(&l.t);
    }
    const long bad = exchange(l, rank);
    long all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all == 0) std::printf("pmpi_large: %s passed\n", argv[1]);
        else std::printf("pmpi_large: %s: %ld elements wrong\n", argv[1], all);
    }
    if (spaced) MPI_Type_free(&l.t);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
