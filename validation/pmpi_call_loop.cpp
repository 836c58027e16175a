// pmpi_call_loop COLLECTIVE BYTES CALLS BATCHES: times one collective called back to back —
// the PMPI library's interception overhead (validation/pmpi_figures.sh preloads the library).
// Batches alternate between the MPI_ entry point (the library's, when preloaded) and the PMPI_
// one (always the MPI library's own), so both see the same machine at the same time. Per batch:
// a barrier, then CALLS calls of MPI_Allreduce (BYTES / 4 ints, sum), or MPI_Bcast or MPI_Gather
// (BYTES a rank) to rank 0.
// Rank 0 prints the median time per call of each entry point and their ratio:
//   call_loop allreduce 8 bytes: MPI_ 1234.5 ns, PMPI_ 1200.1 ns, ratio 1.029 (20 batches of 10000 each)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 5) {
        if (rank == 0) std::fprintf(stderr, "usage: pmpi_call_loop allreduce|bcast|gather BYTES CALLS BATCHES\n");
        MPI_Finalize();
        return 2;
    }
    const std::string coll = argv[1];
    const long bytes = std::atol(argv[2]), calls = std::atol(argv[3]), batches = std::atol(argv[4]);
    if ((coll != "allreduce" && coll != "bcast" && coll != "gather") || bytes < 4 || bytes % 4 || calls < 1 || batches < 1) {
        if (rank == 0) std::fprintf(stderr, "pmpi_call_loop: bad arguments (bytes: a positive multiple of 4)\n");
        MPI_Finalize();
        return 2;
    }
    const int n = static_cast<int>(bytes / 4);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> in(static_cast<std::size_t>(n), rank), out(static_cast<std::size_t>(n) * static_cast<std::size_t>(size));
    std::vector<double> mpi, pmpi;
    for (long b = 0; b < 2 * (batches + 1); ++b) {  // the first batch of each warms up
        const bool through_mpi = b % 2 == 0;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (long c = 0; c < calls; ++c) {
            if (coll == "allreduce") {
                if (through_mpi) MPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                else PMPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            } else if (coll == "gather") {
                if (through_mpi) MPI_Gather(in.data(), n, MPI_INT, out.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
                else PMPI_Gather(in.data(), n, MPI_INT, out.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
            } else {
                if (through_mpi) MPI_Bcast(in.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
                else PMPI_Bcast(in.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
            }
        }
        const double t = (MPI_Wtime() - t0) / static_cast<double>(calls);
        if (b >= 2) (through_mpi ? mpi : pmpi).push_back(t);
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    if (rank == 0)
        std::printf("call_loop %s %ld bytes: MPI_ %.1f ns, PMPI_ %.1f ns, ratio %.3f (%ld batches of %ld each)\n",
                    coll.c_str(), bytes, median(mpi) * 1e9, median(pmpi) * 1e9, median(mpi) / median(pmpi), batches, calls);
    MPI_Finalize();
    return 0;
}
