// pmpi_tags [CALLS]: one non-blocking broadcast stays pending while thousands of later ones on
// the same communicator start (MPI lets a program post as many as it likes before waiting). Rank
// 2 posts nothing until the others have posted all CALLS (default 3000) and told it so, so the
// first broadcast, rooted at rank 2, cannot move, while the later ones, rooted at ranks 0, 1 and
// 3 in turn, send at once. A library whose tags came round again within CALLS operations would
// have a later broadcast's message taken by the first one's receive (the same source and tag):
// wrong data, which this program reports. Every rank checks every broadcast's data; 4 or more
// ranks. Prints "pmpi_tags: N broadcasts passed on R ranks" and exits 0, else exits 1.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int calls = argc > 1 ? std::atoi(argv[1]) : 3000;
    if (size < 4 || calls < 1) {
        if (rank == 0) std::fprintf(stderr, "pmpi_tags: needs 4 or more ranks and a positive count\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    constexpr int kInts = 4, kLate = 2, kGo = 99;
    const int others[] = {0, 1, 3};
    auto root_of = [&](int i) { return i == 0 ? kLate : others[i % 3]; };
    std::vector<int> data(static_cast<std::size_t>(calls) * kInts);
    std::vector<MPI_Request> requests(static_cast<std::size_t>(calls));
    int go = 1;
    if (rank == kLate) MPI_Recv(&go, 1, MPI_INT, 0, kGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < calls; ++i) {
        int* block = &data[static_cast<std::size_t>(i) * kInts];
        for (int j = 0; j < kInts; ++j) block[j] = rank == root_of(i) ? i * kInts + j : -1;
        MPI_Ibcast(block, kInts, MPI_INT, root_of(i), comm, &requests[static_cast<std::size_t>(i)]);
    }
    if (rank == 0) MPI_Send(&go, 1, MPI_INT, kLate, kGo, MPI_COMM_WORLD);
    MPI_Waitall(calls, requests.data(), MPI_STATUSES_IGNORE);
    int wrong = 0;
    for (int i = 0; i < calls; ++i)
        for (int j = 0; j < kInts; ++j)
            if (data[static_cast<std::size_t>(i) * kInts + j] != i * kInts + j) {
                if (wrong++ < 5)
                    std::fprintf(stderr, "pmpi_tags: rank %d: broadcast %d (root %d) element %d is %d, not %d\n", rank, i,
                                 root_of(i), j, data[static_cast<std::size_t>(i) * kInts + j], i * kInts + j);
            }
    int all_wrong = 0;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_wrong == 0) std::printf("pmpi_tags: %d broadcasts passed on %d ranks\n", calls, size);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all_wrong == 0 ? 0 : 1;
}
