// An ordinary MPI program — it knows nothing of gridcoll — that calls the seven collectives MPI
// has beyond the classic nine (MPI_Exscan, MPI_Reduce_scatter_block, MPI_Reduce_scatter,
// MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv, MPI_Alltoallv) and the non-blocking form of all
// sixteen, on the world communicator, a split by parity and one in reverse rank order: uneven
// and zero counts, displacements with gaps, a datatype with gaps (resized), MPI_IN_PLACE, a
// non-commutative user operation; non-blocking calls are completed by MPI_Wait, MPI_Waitall
// mixed with the program's own point-to-point requests, MPI_Test loops and MPI_Waitany. Every
// result is checked against MPI's definition.
//
//   pmpi_more [--threads] [elements...]     base element counts per call (default 1 5 3000)
//
// --threads: MPI_Init_thread(MPI_THREAD_MULTIPLE), and every communicator tested by its own
// thread, all at once (MPI allows collectives on different communicators from different threads).
//
// Rank 0 ends with "pmpi_more: <n> checks passed on <p> ranks"; a wrong value is printed and the
// exit status is non-zero.
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <cstdlib>
#include <string>
#include <vector>

#include "pmpi_more.hpp"

namespace pmpi_more {

int g_world_rank = 0;
std::atomic<long> g_checks{0}, g_failures{0};

void expect(bool ok, const std::string& what) {
    ++g_checks;
    if (ok) return;
    if (++g_failures <= 20) std::fprintf(stderr, "pmpi_more[%d]: WRONG %s\n", g_world_rank, what.c_str());
}

int count_of(int j, long n) { return (j * 3 + static_cast<int>(n)) % 5 == 0 ? 0 : static_cast<int>(n) + j; }

void complete(MPI_Request* req, Completion how) {
    if (how == Completion::Wait) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
        return;
    }
    if (how == Completion::TestLoop) {
        int done = 0;
        while (!done) MPI_Test(req, &done, MPI_STATUS_IGNORE);
        return;
    }
    // Waitall or Waitany with the program's own point-to-point requests: a ring exchange of one int.
    const Comm& c = *g_current;
    int out = c.rank, in = -1;
    MPI_Request all[3];
    all[0] = *req;
    MPI_Irecv(&in, 1, MPI_INT, (c.rank - 1 + c.size) % c.size, 77, c.comm, &all[1]);
    MPI_Isend(&out, 1, MPI_INT, (c.rank + 1) % c.size, 77, c.comm, &all[2]);
    if (how == Completion::Waitany) {  // each request reported once, in whatever order they end
        bool seen[3] = {false, false, false};
        for (int k = 0; k < 3; ++k) {
            int index = -1;
            MPI_Waitany(3, all, &index, MPI_STATUS_IGNORE);
            const bool once = index >= 0 && index < 3 && !seen[index] && all[index] == MPI_REQUEST_NULL;
            expect(once, "MPI_Waitany: each request's index once, the request freed");
            if (!once) break;
            seen[index] = true;
        }
        int index = 0;
        MPI_Waitany(3, all, &index, MPI_STATUS_IGNORE);
        expect(index == MPI_UNDEFINED, "MPI_Waitany with no active request: MPI_UNDEFINED");
    } else {
        MPI_Waitall(3, all, MPI_STATUSES_IGNORE);
    }
    *req = all[0];
    expect(in == (c.rank - 1 + c.size) % c.size, "point-to-point next to a collective in MPI_Waitall/Waitany");
}

thread_local const Comm* g_current = nullptr;

}  // namespace pmpi_more

using namespace pmpi_more;

void test_comm(const Comm& c, const std::vector<long>& counts) {
    g_current = &c;
    for (long n : counts) {
        test_blocking_more(c, n);
        for (Completion how : {Completion::Wait, Completion::Waitall, Completion::TestLoop, Completion::Waitany})
            test_nonblocking(c, n, how);
    }
}

// Erroneous on purpose (--mismatch): rank 0 reduces 40 ints, the others send 4. With the library
// the job must stop with its message rather than wait for bytes that never come.
int mismatched_counts() {
    std::vector<int> in(40, 1), out(40, 0);
    const int count = g_world_rank == 0 ? 40 : 4;
    MPI_Reduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--mismatch") {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
        return mismatched_counts();
    }
    const bool threads = argc > 1 && std::string(argv[1]) == "--threads";
    if (threads) {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE) {
            std::fprintf(stderr, "pmpi_more: the MPI library does not provide MPI_THREAD_MULTIPLE\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<long> counts;
    for (int i = threads ? 2 : 1; i < argc; ++i) {
        char* end = nullptr;
        const long n = std::strtol(argv[i], &end, 10);
        if (!end || *end || n < 1) {
            if (g_world_rank == 0) std::fprintf(stderr, "pmpi_more: bad element count '%s'\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
        counts.push_back(n);
    }
    if (counts.empty()) counts = {1, 5, 3000};
    MPI_Comm parity, reversed;
    MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, g_world_rank, &parity);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - g_world_rank, &reversed);
    std::vector<Comm> comms{{MPI_COMM_WORLD, "world", g_world_rank, size}, {parity, "parity", 0, 1}, {reversed, "reversed", 0, 1}};
    for (std::size_t k = 1; k < comms.size(); ++k) {
        MPI_Comm_rank(comms[k].comm, &comms[k].rank);
        MPI_Comm_size(comms[k].comm, &comms[k].size);
    }
    if (threads) {
        // The world communicator stays with this thread; the others get a duplicate each.
        std::vector<std::thread> workers;
        for (std::size_t k = 1; k < comms.size(); ++k) workers.emplace_back(test_comm, comms[k], counts);
        test_comm(comms[0], counts);
        for (auto& w : workers) w.join();
    } else {
        for (const Comm& c : comms) test_comm(c, counts);
    }
    MPI_Comm_free(&parity);
    MPI_Comm_free(&reversed);
    long failures = 0, mine = g_failures;
    MPI_Allreduce(&mine, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_world_rank == 0)
        std::printf("pmpi_more: %ld checks %s on %d ranks%s\n", g_checks.load(), failures ? "FAILED" : "passed", size,
                    threads ? " (threads)" : "");
    MPI_Finalize();
    return failures ? 1 : 0;
}
