// pmpi_more: the non-blocking form of all sixteen collectives, each completed as `how` says
// (MPI_Wait, MPI_Waitall beside point-to-point requests, an MPI_Test loop, MPI_Waitany), its
// result checked. The buffers are written by the program only before the call and read after
// completion, as MPI requires.
#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "pmpi_more.hpp"

namespace pmpi_more {

namespace {

using V = std::vector<int>;
std::size_t at(long i) { return static_cast<std::size_t>(i); }

std::string where(const Comm& c, const char* what, long n, Completion how) {
    static const char* names[] = {"wait", "waitall", "test-loop", "waitany"};
    return std::string(what) + " on " + c.name + " n=" + std::to_string(n) + " by " + names[static_cast<int>(how)] +
           " rank " + std::to_string(c.rank);
}

long sum_over(int lo, int hi, long i, int salt) {
    long s = 0;
    for (int r = lo; r < hi; ++r) s += value(r, i, salt);
    return s;
}

void reductions(const Comm& c, long n, Completion how) {
    const int P = c.size, root = P / 2;
    V in(at(n)), out(at(n), -9);
    for (long i = 0; i < n; ++i) in[at(i)] = value(c.rank, i, 21);
    MPI_Request q;
    const auto check = [&](const char* what, int lo, int hi, bool here) {
        bool ok = true;
        for (long i = 0; i < n && here; ++i) ok = ok && out[at(i)] == sum_over(lo, hi, i, 21);
        expect(ok, where(c, what, n, how));
        std::fill(out.begin(), out.end(), -9);
    };
    MPI_Ireduce(in.data(), out.data(), static_cast<int>(n), MPI_INT, MPI_SUM, root, c.comm, &q);
    complete(&q, how);
    check("MPI_Ireduce", 0, P, c.rank == root);
    MPI_Iallreduce(in.data(), out.data(), static_cast<int>(n), MPI_INT, MPI_SUM, c.comm, &q);
    complete(&q, how);
    check("MPI_Iallreduce", 0, P, true);
    MPI_Iscan(in.data(), out.data(), static_cast<int>(n), MPI_INT, MPI_SUM, c.comm, &q);
    complete(&q, how);
    check("MPI_Iscan", 0, c.rank + 1, true);
    MPI_Iexscan(in.data(), out.data(), static_cast<int>(n), MPI_INT, MPI_SUM, c.comm, &q);
    complete(&q, how);
    check("MPI_Iexscan", 0, c.rank, c.rank > 0);
    V whole(at(n * P));
    for (long i = 0; i < n * P; ++i) whole[at(i)] = value(c.rank, i, 21);
    MPI_Ireduce_scatter_block(whole.data(), out.data(), static_cast<int>(n), MPI_INT, MPI_SUM, c.comm, &q);
    complete(&q, how);
    bool ok = true;
    for (long i = 0; i < n; ++i) ok = ok && out[at(i)] == sum_over(0, P, c.rank * n + i, 21);
    expect(ok, where(c, "MPI_Ireduce_scatter_block", n, how));
    V counts(at(P), static_cast<int>(n));
    counts[0] = 0;  // rank 0 gets nothing
    if (P > 1) counts[at(P - 1)] = static_cast<int>(2 * n);
    V part(at(2 * n), -9);
    MPI_Ireduce_scatter(whole.data(), part.data(), counts.data(), MPI_INT, MPI_SUM, c.comm, &q);
    complete(&q, how);
    const long first = std::accumulate(counts.begin(), counts.begin() + c.rank, 0L);
    ok = true;
    for (long i = 0; i < counts[at(c.rank)]; ++i) ok = ok && part[at(i)] == sum_over(0, P, first + i, 21);
    expect(ok, where(c, "MPI_Ireduce_scatter", n, how));
}

void data_movers(const Comm& c, long n, Completion how) {
    const int P = c.size, root = P - 1;
    MPI_Request q;
    MPI_Ibarrier(c.comm, &q);
    complete(&q, how);
    V buf(at(n));
    for (long i = 0; i < n; ++i) buf[at(i)] = c.rank == root ? value(root, i, 31) : -1;
    MPI_Ibcast(buf.data(), static_cast<int>(n), MPI_INT, root, c.comm, &q);
    complete(&q, how);
    bool ok = true;
    for (long i = 0; i < n; ++i) ok = ok && buf[at(i)] == value(root, i, 31);
    expect(ok, where(c, "MPI_Ibcast", n, how));
    V mine(at(n)), all(at(n * P), -1), blocks(at(n * P));
    for (long i = 0; i < n; ++i) mine[at(i)] = value(c.rank, i, 33);
    for (long i = 0; i < n * P; ++i) blocks[at(i)] = value(c.rank, i, 35);
    const auto gathered = [&](const char* what, bool here) {
        bool good = true;
        for (long i = 0; i < n * P && here; ++i) good = good && all[at(i)] == value(static_cast<int>(i / n), i % n, 33);
        expect(good, where(c, what, n, how));
        std::fill(all.begin(), all.end(), -1);
    };
    MPI_Igather(mine.data(), static_cast<int>(n), MPI_INT, all.data(), static_cast<int>(n), MPI_INT, root, c.comm, &q);
    complete(&q, how);
    gathered("MPI_Igather", c.rank == root);
    MPI_Iallgather(mine.data(), static_cast<int>(n), MPI_INT, all.data(), static_cast<int>(n), MPI_INT, c.comm, &q);
    complete(&q, how);
    gathered("MPI_Iallgather", true);
    const V counts(at(P), static_cast<int>(n));
    V displs(at(P));
    std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
    MPI_Iallgatherv(mine.data(), static_cast<int>(n), MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                    c.comm, &q);
    complete(&q, how);
    gathered("MPI_Iallgatherv", true);
    MPI_Igatherv(mine.data(), static_cast<int>(n), MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, root,
                 c.comm, &q);
    complete(&q, how);
    gathered("MPI_Igatherv", c.rank == root);
    V got(at(n), -1);
    const auto scattered = [&](const char* what) {
        bool good = true;
        for (long i = 0; i < n; ++i) good = good && got[at(i)] == value(root, c.rank * n + i, 35);
        expect(good, where(c, what, n, how));
        std::fill(got.begin(), got.end(), -1);
    };
    MPI_Iscatter(blocks.data(), static_cast<int>(n), MPI_INT, got.data(), static_cast<int>(n), MPI_INT, root, c.comm,
                 &q);
    complete(&q, how);
    scattered("MPI_Iscatter");
    MPI_Iscatterv(blocks.data(), counts.data(), displs.data(), MPI_INT, got.data(), static_cast<int>(n), MPI_INT, root,
                  c.comm, &q);
    complete(&q, how);
    scattered("MPI_Iscatterv");
    const auto exchanged = [&](const char* what) {
        bool good = true;
        for (int j = 0; j < P; ++j)
            for (long i = 0; i < n; ++i) good = good && all[at(j * n + i)] == value(j, c.rank * n + i, 35);
        expect(good, where(c, what, n, how));
        std::fill(all.begin(), all.end(), -1);
    };
    MPI_Ialltoall(blocks.data(), static_cast<int>(n), MPI_INT, all.data(), static_cast<int>(n), MPI_INT, c.comm, &q);
    complete(&q, how);
    exchanged("MPI_Ialltoall");
    MPI_Ialltoallv(blocks.data(), counts.data(), displs.data(), MPI_INT, all.data(), counts.data(), displs.data(),
                   MPI_INT, c.comm, &q);
    complete(&q, how);
    exchanged("MPI_Ialltoallv");
}

void add_ints(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<const int*>(in)[i];
}

// MPI lets a program free an operation or a datatype while a non-blocking collective uses it;
// the operation completes normally (MPI_Op_free, MPI_Type_free). Each is freed here right after
// the call, before completion.
void freed_while_pending(const Comm& c, long n, Completion how) {
    V in(at(2 * n)), out(at(2 * n), -9);
    for (long i = 0; i < 2 * n; ++i) in[at(i)] = value(c.rank, i, 41);
    MPI_Op op;
    MPI_Op_create(add_ints, 1, &op);
    MPI_Request q;
    MPI_Iallreduce(in.data(), out.data(), static_cast<int>(n), MPI_INT, op, c.comm, &q);
    MPI_Op_free(&op);
    complete(&q, how);
    bool ok = op == MPI_OP_NULL;
    for (long i = 0; i < n; ++i) ok = ok && out[at(i)] == sum_over(0, c.size, i, 41);
    expect(ok, where(c, "MPI_Iallreduce, its user operation freed before completion", n, how));
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    V buf = c.rank == 0 ? in : V(at(2 * n), -1);
    MPI_Ibcast(buf.data(), static_cast<int>(n), pair, 0, c.comm, &q);
    MPI_Type_free(&pair);
    complete(&q, how);
    ok = pair == MPI_DATATYPE_NULL;
    for (long i = 0; i < 2 * n; ++i) ok = ok && buf[at(i)] == value(0, i, 41);
    expect(ok, where(c, "MPI_Ibcast, its datatype freed before completion", n, how));
}

// MPI's own non-blocking v-collectives read their count and displacement arrays at the call, and
// programs count on it (mpi4py 3.1 frees them as the call returns): here each is overwritten and
// freed right after the call, before completion. The blocks land with a gap after each, so the
// library unpacks them at completion. The last all-to-all moves only each rank's own block, so
// its schedule can be done at the call.
void arrays_freed_while_pending(const Comm& c, long n, Completion how) {
    const int P = c.size, root = P - 1;
    const long stride = n + 1;
    V mine(at(n)), blocks(at(n * P)), all(at(stride * P), -1);
    for (long i = 0; i < n; ++i) mine[at(i)] = value(c.rank, i, 45);
    for (long i = 0; i < n * P; ++i) blocks[at(i)] = value(c.rank, i, 46);
    const auto arrays = [&](bool self_only) {  // counts, then displacements (a gap after each block)
        int* a = new int[at(2 * P)];
        for (int j = 0; j < P; ++j) a[j] = !self_only || j == c.rank ? static_cast<int>(n) : 0, a[P + j] = static_cast<int>(j * stride);
        return a;
    };
    const auto scribble = [P](int* a) {
        std::fill(a, a + 2 * P, -7);
        delete[] a;
    };
    const auto landed = [&](const char* what, bool here, int salt, bool self_only, bool own) {
        bool good = true;
        for (int j = 0; j < P && here; ++j)
            for (long i = 0; i <= n; ++i) {
                const bool data = i < n && (!self_only || j == c.rank);
                const int want = !data ? -1 : own ? value(j, i, salt) : value(j, c.rank * n + i, salt);
                good = good && all[at(j * stride + i)] == want;
            }
        expect(good, where(c, what, n, how));
        std::fill(all.begin(), all.end(), -1);
    };
    MPI_Request q;
    int* a = arrays(false);
    MPI_Iallgatherv(mine.data(), static_cast<int>(n), MPI_INT, all.data(), a, a + P, MPI_INT, c.comm, &q);
    scribble(a);
    complete(&q, how);
    landed("MPI_Iallgatherv, its count and displacement arrays freed before completion", true, 45, false, true);
    a = arrays(false);
    MPI_Igatherv(mine.data(), static_cast<int>(n), MPI_INT, all.data(), a, a + P, MPI_INT, root, c.comm, &q);
    scribble(a);
    complete(&q, how);
    landed("MPI_Igatherv, its count and displacement arrays freed before completion", c.rank == root, 45, false, true);
    for (bool self_only : {false, true}) {
        int* s = arrays(self_only);
        for (int j = 0; j < P; ++j) s[P + j] = static_cast<int>(j * n);  // the blocks to send lie packed
        a = arrays(self_only);
        MPI_Ialltoallv(blocks.data(), s, s + P, MPI_INT, all.data(), a, a + P, MPI_INT, c.comm, &q);
        scribble(s);
        scribble(a);
        complete(&q, how);
        landed(self_only ? "MPI_Ialltoallv to itself only, its arrays freed before completion"
                         : "MPI_Ialltoallv, its count and displacement arrays freed before completion",
               true, 46, self_only, false);
    }
}

// The same for a communicator (MPI_Comm_free: "any pending operations that use this
// communicator will complete normally"; the free itself is local, it does not wait for them).
// Rank 0 frees it and only then lets the others start their part (a message on c.comm): a free
// that waited for the pending broadcast, 1 MiB from rank 0, would wait forever. The broadcast is
// the communicator's first call: gridcoll made its duplicate at MPI_Comm_dup, so gridcoll runs
// it (runtime/pmpi/README.md). Only with the gridcoll library
// under the program (PMPI_MORE_WITH_LIBRARY=1): Open MPI 4.1's own non-blocking collectives crash
// on a communicator freed while pending.
void comm_freed_while_pending(const Comm& c, Completion how) {
    constexpr long kInts = 1L << 18;
    MPI_Comm d;
    MPI_Comm_dup(c.comm, &d);
    V buf(at(kInts), -1);
    if (c.rank == 0)
        for (long i = 0; i < kInts; ++i) buf[at(i)] = value(0, i, 43);
    MPI_Request q;
    int go = 1;
    if (c.rank != 0) MPI_Recv(&go, 1, MPI_INT, 0, 78, c.comm, MPI_STATUS_IGNORE);
    MPI_Ibcast(buf.data(), static_cast<int>(kInts), MPI_INT, 0, d, &q);
    MPI_Comm_free(&d);
    if (c.rank == 0)
        for (int r = 1; r < c.size; ++r) MPI_Send(&go, 1, MPI_INT, r, 78, c.comm);
    complete(&q, how);
    bool ok = d == MPI_COMM_NULL;
    for (long i = 0; i < kInts; ++i) ok = ok && buf[at(i)] == value(0, i, 43);
    expect(ok, where(c, "MPI_Ibcast, its communicator freed before completion", kInts, how));
}

// Starting a non-blocking collective is local (MPI 4.1, 6.12): rank 0 starts a broadcast and
// only then receives what every other rank sends synchronously (MPI_Ssend) before starting its
// own part. A start that waited for the other ranks (a duplicate of the communicator made or a
// schedule agreed on at the call) would deadlock here. The count is new on the communicator at
// every call, so the library meets the shape for the first time; and on a fresh duplicate of the
// communicator, its first collective call.
void start_is_local_on(const Comm& c, MPI_Comm comm, long ints, Completion how, const char* what) {
    V buf(at(ints), -1);
    if (c.rank == 0)
        for (long i = 0; i < ints; ++i) buf[at(i)] = value(0, i, 44);
    int token = c.rank;
    MPI_Request q;
    if (c.rank == 0) {
        MPI_Ibcast(buf.data(), static_cast<int>(ints), MPI_INT, 0, comm, &q);
        for (int r = 1; r < c.size; ++r) MPI_Recv(&token, 1, MPI_INT, r, 79, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Ssend(&token, 1, MPI_INT, 0, 79, comm);
        MPI_Ibcast(buf.data(), static_cast<int>(ints), MPI_INT, 0, comm, &q);
    }
    complete(&q, how);
    bool ok = true;
    for (long i = 0; i < ints; ++i) ok = ok && buf[at(i)] == value(0, i, 44);
    expect(ok, where(c, what, ints, how));
}

void start_is_local(const Comm& c, long n, Completion how) {
    const long ints = (1L << 16) + 8 * n + static_cast<long>(how);
    start_is_local_on(c, c.comm, ints, how, "MPI_Ibcast started before the other ranks reach it");
    MPI_Comm fresh;
    MPI_Comm_dup(c.comm, &fresh);
    MPI_Comm_set_name(fresh, "fresh-dup");  // the library's log names it so (pmpi_tests.sh)
    start_is_local_on(c, fresh, ints, how, "MPI_Ibcast, the first call on a communicator, started before the others");
    MPI_Comm_free(&fresh);
#ifndef SMPI_H  // SimGrid 3.32 has no MPI_Comm_idup
    // The same on a communicator made by the non-blocking MPI_Comm_idup (the library makes its
    // duplicate of a communicator where the communicator is made, but not there).
    MPI_Request made;
    MPI_Comm_idup(c.comm, &fresh, &made);
    MPI_Wait(&made, MPI_STATUS_IGNORE);
    MPI_Comm_set_name(fresh, "fresh-idup");
    start_is_local_on(c, fresh, ints, how, "MPI_Ibcast, the first call on an MPI_Comm_idup communicator, started before the others");
    MPI_Comm_free(&fresh);
#endif
}

}  // namespace

void test_nonblocking(const Comm& c, long n, Completion how) {
    start_is_local(c, n, how);
    reductions(c, n, how);
    data_movers(c, n, how);
    freed_while_pending(c, n, how);
    arrays_freed_while_pending(c, n, how);
    static const bool with_library = std::getenv("PMPI_MORE_WITH_LIBRARY") != nullptr;
    if (with_library) comm_freed_while_pending(c, how);
}

}  // namespace pmpi_more
