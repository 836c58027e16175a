// pmpi_large_count [big]: MPI 4's large-count collectives (MPI_Count counts) the PMPI library runs
// as their int forms (runtime/pmpi/large_count.hpp): broadcast, reduce, allreduce, scan, exscan,
// scatter, gather, allgather, all-to-all, reduce_scatter_block and reduce_scatter, and the
// v-variants (allgatherv, gatherv, scatterv, alltoallv, alltoallw, which the library runs on their
// MPI_Count and MPI_Aint arrays), each in its blocking _c form, its non-blocking one (then
// MPI_Wait), and its persistent one (made once, started twice with new data, freed), on a
// communicator of the world's ranks in the reverse order named "reversed", roots by turn; a
// gatherv, allgatherv and scatterv at displacements past INT_MAX; a broadcast of ints that odd
// ranks receive as pairs, and an allreduce in place. Then a broadcast and a non-blocking all-gather of a datatype of no
// bytes with a count past INT_MAX (the int form, with no bytes), and a reduce-scatter of it. With
// `big`: a broadcast of 2^31 + 8 bytes from the world's rank 0 by MPI_Bcast_c (past an int: the
// MPI library's own call; 2.1 GB a rank; MPICH 4.0.2's own MPI_Ibcast_c of that size fails);
// then a gatherv and a scatterv of one such block (the library's; 4.3 GB at rank 1).
// Every result is checked; prints "pmpi_large_count: N checks passed on P ranks" (rank 0's
// count), exit status 1 on a wrong result.
#include <mpi.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#if MPI_VERSION < 4
#error "pmpi_large_count needs MPI 4's large-count collectives"
#endif

namespace {

int failures = 0, checks = 0, me = 0, P = 1;
MPI_Comm g_comm = MPI_COMM_NULL;
constexpr MPI_Count m = 257;  // elements a block

int value(long r, long i, int salt) { return static_cast<int>((r * 7 + i * 13 + salt * 5) % 101) - 50; }

void expect(bool ok, const std::string& what) {
    ++checks;
    if (!ok) {
        ++failures;
        std::fprintf(stderr, "pmpi_large_count: rank %d: %s\n", me, what.c_str());
    }
}

using Call = std::function<void()>;
using Start = std::function<void(MPI_Request*)>;

// One collective in its three forms: fill(salt) sets the inputs, check(salt, form) the outputs.
void forms(const char* name, const std::function<void(int)>& fill, const std::function<bool(int)>& check,
           const Call& blocking, const Start& nonblocking, const Start& init) {
    fill(1);
    blocking();
    expect(check(1), std::string(name) + " blocking");
    MPI_Request r = MPI_REQUEST_NULL;
    fill(2);
    nonblocking(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect(check(2) && r == MPI_REQUEST_NULL, std::string(name) + " non-blocking");
    MPI_Request p = MPI_REQUEST_NULL;
    init(&p);
    for (int salt = 3; salt <= 4; ++salt) {
        fill(salt);
        MPI_Start(&p);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
        expect(check(salt), std::string(name) + " persistent, start " + std::to_string(salt - 2));
    }
    MPI_Request_free(&p);
    expect(p == MPI_REQUEST_NULL, std::string(name) + " persistent freed");
}

void rooted_and_reductions(int root) {
    std::vector<int> a(static_cast<std::size_t>(m * P)), b(static_cast<std::size_t>(m * P));
    const auto sum = [](long lo, long hi, long i, int salt) {
        long s = 0;
        for (long r = lo; r <= hi; ++r) s += value(r, i, salt);
        return static_cast<int>(s);
    };
    const auto all = [&](const std::vector<int>& x, long n, const std::function<int(long)>& want) {
        for (long i = 0; i < n; ++i)
            if (x[static_cast<std::size_t>(i)] != want(i)) return false;
        return true;
    };
    const auto own = [&](int salt) {
        for (long i = 0; i < m; ++i) a[static_cast<std::size_t>(i)] = value(me, i, salt);
        std::fill(b.begin(), b.end(), -999);
    };
    forms("bcast", [&](int salt) { for (long i = 0; i < m; ++i) a[static_cast<std::size_t>(i)] = me == root ? value(root, i, salt) : -999; },
          [&](int salt) { return all(a, m, [&](long i) { return value(root, i, salt); }); },
          [&] { MPI_Bcast_c(a.data(), m, MPI_INT, root, g_comm); },
          [&](MPI_Request* r) { MPI_Ibcast_c(a.data(), m, MPI_INT, root, g_comm, r); },
          [&](MPI_Request* r) { MPI_Bcast_init_c(a.data(), m, MPI_INT, root, g_comm, MPI_INFO_NULL, r); });
    forms("reduce", own, [&](int salt) { return me != root || all(b, m, [&](long i) { return sum(0, P - 1, i, salt); }); },
          [&] { MPI_Reduce_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, root, g_comm); },
          [&](MPI_Request* r) { MPI_Ireduce_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, root, g_comm, r); },
          [&](MPI_Request* r) { MPI_Reduce_init_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, root, g_comm, MPI_INFO_NULL, r); });
    forms("allreduce", own, [&](int salt) { return all(b, m, [&](long i) { return sum(0, P - 1, i, salt); }); },
          [&] { MPI_Allreduce_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm); },
          [&](MPI_Request* r) { MPI_Iallreduce_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, r); },
          [&](MPI_Request* r) { MPI_Allreduce_init_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, MPI_INFO_NULL, r); });
    forms("scan", own, [&](int salt) { return all(b, m, [&](long i) { return sum(0, me, i, salt); }); },
          [&] { MPI_Scan_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm); },
          [&](MPI_Request* r) { MPI_Iscan_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, r); },
          [&](MPI_Request* r) { MPI_Scan_init_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, MPI_INFO_NULL, r); });
    forms("exscan", own, [&](int salt) { return me == 0 || all(b, m, [&](long i) { return sum(0, me - 1, i, salt); }); },
          [&] { MPI_Exscan_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm); },
          [&](MPI_Request* r) { MPI_Iexscan_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, r); },
          [&](MPI_Request* r) { MPI_Exscan_init_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, MPI_INFO_NULL, r); });
}

void blocks(int root) {
    std::vector<int> a(static_cast<std::size_t>(m * P)), b(static_cast<std::size_t>(m * P));
    const auto block_ok = [&](const std::vector<int>& x, long at, long from, int salt) {
        for (long i = 0; i < m; ++i)
            if (x[static_cast<std::size_t>(at * m + i)] != value(from, i, salt)) return false;
        return true;
    };
    const auto fill_blocks = [&](int salt, const std::function<long(long)>& source) {
        for (long j = 0; j < P; ++j)
            for (long i = 0; i < m; ++i) a[static_cast<std::size_t>(j * m + i)] = value(source(j), i, salt);
        std::fill(b.begin(), b.end(), -999);
    };
    forms("scatter", [&](int salt) { fill_blocks(salt, [](long j) { return j; }); },
          [&](int salt) { return block_ok(b, 0, me, salt); },
          [&] { MPI_Scatter_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, root, g_comm); },
          [&](MPI_Request* r) { MPI_Iscatter_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, root, g_comm, r); },
          [&](MPI_Request* r) { MPI_Scatter_init_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, root, g_comm, MPI_INFO_NULL, r); });
    const auto every_block = [&](int salt) {
        for (long j = 0; j < P; ++j)
            if (!block_ok(b, j, j, salt)) return false;
        return true;
    };
    const auto mine = [&](int salt) { fill_blocks(salt, [](long) { return me; }); };
    forms("gather", mine, [&](int salt) { return me != root || every_block(salt); },
          [&] { MPI_Gather_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, root, g_comm); },
          [&](MPI_Request* r) { MPI_Igather_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, root, g_comm, r); },
          [&](MPI_Request* r) { MPI_Gather_init_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, root, g_comm, MPI_INFO_NULL, r); });
    forms("allgather", mine, every_block,
          [&] { MPI_Allgather_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, g_comm); },
          [&](MPI_Request* r) { MPI_Iallgather_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, g_comm, r); },
          [&](MPI_Request* r) { MPI_Allgather_init_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, g_comm, MPI_INFO_NULL, r); });
    // all-to-all: block j of rank r carries value(r * P + j, .)
    forms("alltoall", [&](int salt) { fill_blocks(salt, [](long j) { return me * P + j; }); },
          [&](int salt) {
              for (long j = 0; j < P; ++j)
                  if (!block_ok(b, j, j * P + me, salt)) return false;
              return true;
          },
          [&] { MPI_Alltoall_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, g_comm); },
          [&](MPI_Request* r) { MPI_Ialltoall_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, g_comm, r); },
          [&](MPI_Request* r) { MPI_Alltoall_init_c(a.data(), m, MPI_INT, b.data(), m, MPI_INT, g_comm, MPI_INFO_NULL, r); });
}

// The v-variants (MPI_Count counts, MPI_Aint displacements, never narrowed to the int forms):
// rank j's block is m + 3j elements, the blocks spaced out with gaps (displacement j * (m + 3P)
// + 2), so the library packs and unpacks them.
void vblocks(int root) {
    const long stride = m + 3 * P, span = stride * P + 2;
    std::vector<MPI_Count> counts(static_cast<std::size_t>(P)), rows(static_cast<std::size_t>(P));
    std::vector<MPI_Aint> displs(static_cast<std::size_t>(P));
    for (long j = 0; j < P; ++j) {
        counts[static_cast<std::size_t>(j)] = m + 3 * j;
        rows[static_cast<std::size_t>(j)] = m + 3 * me;  // alltoallv: every block from this rank as long
        displs[static_cast<std::size_t>(j)] = j * stride + 2;
    }
    const MPI_Count mine = m + 3 * me;
    std::vector<int> a(static_cast<std::size_t>(span)), b(static_cast<std::size_t>(span));
    // block j of buffer x (at displs[j], n elements) holds value(from, .)
    const auto block_ok = [&](const std::vector<int>& x, long j, long n, long from, int salt) {
        for (long i = 0; i < n; ++i)
            if (x[static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] + i)] != value(from, i, salt)) return false;
        return true;
    };
    const auto fill = [&](int salt, const std::function<long(long)>& source, const std::function<long(long)>& n) {
        std::fill(a.begin(), a.end(), -999);
        std::fill(b.begin(), b.end(), -999);
        for (long j = 0; j < P; ++j)
            for (long i = 0; i < n(j); ++i) a[static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] + i)] = value(source(j), i, salt);
    };
    const auto own = [&](int salt) {
        std::fill(b.begin(), b.end(), -999);
        for (long i = 0; i < mine; ++i) a[static_cast<std::size_t>(i)] = value(me, i, salt);
    };
    const auto every_block = [&](int salt) {
        for (long j = 0; j < P; ++j)
            if (!block_ok(b, j, counts[static_cast<std::size_t>(j)], j, salt)) return false;
        return b[0] == -999 && b[1] == -999;  // the gap before the first block untouched
    };
    const MPI_Count* c = counts.data();
    const MPI_Aint* d = displs.data();
    forms("allgatherv", own, every_block,
          [&] { MPI_Allgatherv_c(a.data(), mine, MPI_INT, b.data(), c, d, MPI_INT, g_comm); },
          [&](MPI_Request* r) { MPI_Iallgatherv_c(a.data(), mine, MPI_INT, b.data(), c, d, MPI_INT, g_comm, r); },
          [&](MPI_Request* r) { MPI_Allgatherv_init_c(a.data(), mine, MPI_INT, b.data(), c, d, MPI_INT, g_comm, MPI_INFO_NULL, r); });
    forms("gatherv", own, [&](int salt) { return me != root || every_block(salt); },
          [&] { MPI_Gatherv_c(a.data(), mine, MPI_INT, b.data(), c, d, MPI_INT, root, g_comm); },
          [&](MPI_Request* r) { MPI_Igatherv_c(a.data(), mine, MPI_INT, b.data(), c, d, MPI_INT, root, g_comm, r); },
          [&](MPI_Request* r) { MPI_Gatherv_init_c(a.data(), mine, MPI_INT, b.data(), c, d, MPI_INT, root, g_comm, MPI_INFO_NULL, r); });
    const auto counted = [&](long j) { return static_cast<long>(counts[static_cast<std::size_t>(j)]); };
    forms("scatterv", [&](int salt) { fill(salt, [](long j) { return j; }, counted); },
          [&](int salt) {
              for (long i = 0; i < mine; ++i)
                  if (b[static_cast<std::size_t>(i)] != value(me, i, salt)) return false;
              return b[static_cast<std::size_t>(mine)] == -999;
          },
          [&] { MPI_Scatterv_c(a.data(), c, d, MPI_INT, b.data(), mine, MPI_INT, root, g_comm); },
          [&](MPI_Request* r) { MPI_Iscatterv_c(a.data(), c, d, MPI_INT, b.data(), mine, MPI_INT, root, g_comm, r); },
          [&](MPI_Request* r) { MPI_Scatterv_init_c(a.data(), c, d, MPI_INT, b.data(), mine, MPI_INT, root, g_comm, MPI_INFO_NULL, r); });
    // all-to-all: rank r's block to j is m + 3r elements of value(r * P + j, .)
    const MPI_Count* rw = rows.data();
    const auto fill_rows = [&](int salt) { fill(salt, [](long j) { return me * P + j; }, [&](long) { return static_cast<long>(mine); }); };
    const auto rows_ok = [&](int salt) {
        for (long j = 0; j < P; ++j)
            if (!block_ok(b, j, counted(j), j * P + me, salt)) return false;
        return true;
    };
    forms("alltoallv", fill_rows, rows_ok,
          [&] { MPI_Alltoallv_c(a.data(), rw, d, MPI_INT, b.data(), c, d, MPI_INT, g_comm); },
          [&](MPI_Request* r) { MPI_Ialltoallv_c(a.data(), rw, d, MPI_INT, b.data(), c, d, MPI_INT, g_comm, r); },
          [&](MPI_Request* r) { MPI_Alltoallv_init_c(a.data(), rw, d, MPI_INT, b.data(), c, d, MPI_INT, g_comm, MPI_INFO_NULL, r); });
    // the same as alltoallw: displacements in bytes, a datatype per block
    std::vector<MPI_Aint> at_bytes(displs.size());
    for (std::size_t j = 0; j < displs.size(); ++j) at_bytes[j] = displs[j] * static_cast<MPI_Aint>(sizeof(int));
    const std::vector<MPI_Datatype> ints(static_cast<std::size_t>(P), MPI_INT);
    const MPI_Aint* bd = at_bytes.data();
    const MPI_Datatype* t = ints.data();
    forms("alltoallw", fill_rows, rows_ok,
          [&] { MPI_Alltoallw_c(a.data(), rw, bd, t, b.data(), c, bd, t, g_comm); },
          [&](MPI_Request* r) { MPI_Ialltoallw_c(a.data(), rw, bd, t, b.data(), c, bd, t, g_comm, r); },
          [&](MPI_Request* r) { MPI_Alltoallw_init_c(a.data(), rw, bd, t, b.data(), c, bd, t, g_comm, MPI_INFO_NULL, r); });
}

// Displacements past INT_MAX: rank j's block of a gatherv and an allgatherv lands 2^31 + 4096
// bytes after rank j - 1's, in an address range reserved, not filled (only the blocks' pages are
// touched); and a scatterv sends from there.
void far() {
    const MPI_Aint gap = (MPI_Aint{1} << 31) + 4096;
    const std::size_t size = static_cast<std::size_t>(gap) * static_cast<std::size_t>(P) + 4096;
    void* mem = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        expect(false, "mmap of the far buffer");
        return;
    }
    char* far_buf = static_cast<char*>(mem);
    std::vector<MPI_Count> counts(static_cast<std::size_t>(P));
    std::vector<MPI_Aint> displs(static_cast<std::size_t>(P));
    for (long j = 0; j < P; ++j) {
        counts[static_cast<std::size_t>(j)] = 1000 + j;
        displs[static_cast<std::size_t>(j)] = gap * j + 7;
    }
    std::vector<char> mine(static_cast<std::size_t>(1000 + me));
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<char>(value(me, static_cast<long>(i), 11));
    const auto landed = [&](long j) {
        for (long i = 0; i < 1000 + j; ++i)
            if (far_buf[displs[static_cast<std::size_t>(j)] + i] != static_cast<char>(value(j, i, 11))) return false;
        return far_buf[displs[static_cast<std::size_t>(j)] - 1] == 0;
    };
    MPI_Gatherv_c(mine.data(), 1000 + me, MPI_CHAR, far_buf, counts.data(), displs.data(), MPI_CHAR, P - 1, g_comm);
    bool ok = true;
    for (long j = 0; me == P - 1 && j < P; ++j) ok = ok && landed(j);
    expect(ok, "gatherv at displacements past INT_MAX");
    MPI_Allgatherv_c(mine.data(), 1000 + me, MPI_CHAR, far_buf, counts.data(), displs.data(), MPI_CHAR, g_comm);
    for (long j = 0; j < P; ++j) ok = ok && landed(j);
    expect(ok, "allgatherv at displacements past INT_MAX");
    std::vector<char> back(static_cast<std::size_t>(1000 + me), 0);
    MPI_Scatterv_c(far_buf, counts.data(), displs.data(), MPI_CHAR, back.data(), 1000 + me, MPI_CHAR, 0, g_comm);
    expect(back == mine, "scatterv from displacements past INT_MAX");
    munmap(mem, size);
}

// Element i of the input of a reduce-scatter at rank r: value(r, i); rank j's result is the sum
// over the ranks of its block's elements.
bool summed(const std::vector<int>& out, long from, long n, int salt) {
    for (long i = 0; i < n; ++i) {
        long s = 0;
        for (long r = 0; r < P; ++r) s += value(r, from + i, salt);
        if (out[static_cast<std::size_t>(i)] != static_cast<int>(s)) return false;
    }
    return true;
}

void reduce_scatters() {
    std::vector<MPI_Count> counts(static_cast<std::size_t>(P));
    long total = 0, at = 0;
    for (long j = 0; j < P; ++j) {
        counts[static_cast<std::size_t>(j)] = m + 3 * j;
        if (j < me) at += counts[static_cast<std::size_t>(j)];
        total += counts[static_cast<std::size_t>(j)];
    }
    std::vector<int> a(static_cast<std::size_t>(total)), b(static_cast<std::size_t>(total));
    const auto fill = [&](int salt) {
        for (long i = 0; i < total; ++i) a[static_cast<std::size_t>(i)] = value(me, i, salt);
        std::fill(b.begin(), b.end(), -999);
    };
    forms("reduce_scatter_block", fill, [&](int salt) { return summed(b, me * m, m, salt); },
          [&] { MPI_Reduce_scatter_block_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm); },
          [&](MPI_Request* r) { MPI_Ireduce_scatter_block_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, r); },
          [&](MPI_Request* r) { MPI_Reduce_scatter_block_init_c(a.data(), b.data(), m, MPI_INT, MPI_SUM, g_comm, MPI_INFO_NULL, r); });
    forms("reduce_scatter", fill, [&](int salt) { return summed(b, at, counts[static_cast<std::size_t>(me)], salt); },
          [&] { MPI_Reduce_scatter_c(a.data(), b.data(), counts.data(), MPI_INT, MPI_SUM, g_comm); },
          [&](MPI_Request* r) { MPI_Ireduce_scatter_c(a.data(), b.data(), counts.data(), MPI_INT, MPI_SUM, g_comm, r); },
          [&](MPI_Request* r) { MPI_Reduce_scatter_init_c(a.data(), b.data(), counts.data(), MPI_INT, MPI_SUM, g_comm, MPI_INFO_NULL, r); });
}

// The form is chosen by the block's bytes, which the ranks agree on whatever their datatypes: a
// broadcast of 2m ints that the odd ranks receive as m pairs; and an allreduce in place.
void shapes() {
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    std::vector<int> a(static_cast<std::size_t>(2 * m), -999);
    if (me == 0)
        for (long i = 0; i < 2 * m; ++i) a[static_cast<std::size_t>(i)] = value(0, i, 9);
    if (me % 2) MPI_Bcast_c(a.data(), m, two, 0, g_comm);
    else MPI_Bcast_c(a.data(), 2 * m, MPI_INT, 0, g_comm);
    bool ok = true;
    for (long i = 0; i < 2 * m; ++i) ok = ok && a[static_cast<std::size_t>(i)] == value(0, i, 9);
    expect(ok, "bcast of ints received as pairs");
    MPI_Type_free(&two);
    for (long i = 0; i < m; ++i) a[static_cast<std::size_t>(i)] = value(me, i, 10);
    MPI_Allreduce_c(MPI_IN_PLACE, a.data(), m, MPI_INT, MPI_SUM, g_comm);
    for (long i = 0; i < m; ++i) {
        long sum = 0;
        for (int r = 0; r < P; ++r) sum += value(r, i, 10);
        ok = ok && a[static_cast<std::size_t>(i)] == static_cast<int>(sum);
    }
    expect(ok, "allreduce in place");
}

// A count past INT_MAX of a datatype of no bytes: the int form with no bytes.
void no_bytes() {
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int x = me;
    const MPI_Count huge = MPI_Count{1} << 33;
    expect(MPI_Bcast_c(&x, huge, empty, 0, g_comm) == MPI_SUCCESS && x == me, "bcast of no bytes");
    MPI_Request r;
    std::vector<int> y(static_cast<std::size_t>(P), -1);
    expect(MPI_Iallgather_c(&x, huge, empty, y.data(), huge, empty, g_comm, &r) == MPI_SUCCESS, "iallgather of no bytes");
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect(y == std::vector<int>(static_cast<std::size_t>(P), -1), "iallgather of no bytes left the buffer");
    // a reduce-scatter of no bytes (a user operation: MPI defines none of its own on a derived type)
    MPI_Op keep;
    MPI_Op_create([](void*, void*, int*, MPI_Datatype*) {}, 1, &keep);
    const std::vector<MPI_Count> counts(static_cast<std::size_t>(P), huge);
    expect(MPI_Reduce_scatter_c(&x, &y[0], counts.data(), empty, keep, g_comm) == MPI_SUCCESS && y[0] == -1,
           "reduce_scatter of no bytes");
    MPI_Op_free(&keep);
    MPI_Type_free(&empty);
}

// 2^31 + 8 bytes from rank 0 (past an int: the MPI library's own _c call).
void big() {
    const MPI_Count n = (MPI_Count{1} << 31) + 8;
    int world = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    const bool me_root = world == 0;
    std::vector<char> x(static_cast<std::size_t>(n), me_root ? 'x' : 0);
    MPI_Bcast_c(x.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
    expect(x.front() == 'x' && x.back() == 'x' && x[static_cast<std::size_t>(n / 2)] == 'x', "bcast of 2^31 + 8 bytes");
}

// A gatherv to rank 0 of one block of 2^31 + 8 bytes (rank 1's), then a scatterv of it back, by
// their _c forms: the library runs them (the v-variants are never narrowed to the int forms).
void big_v() {
    const MPI_Count n = (MPI_Count{1} << 31) + 8;
    int world = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<MPI_Count> counts(static_cast<std::size_t>(size), 0);
    counts[1] = n;
    const std::vector<MPI_Aint> displs(static_cast<std::size_t>(size), 0);
    const auto pattern = [](MPI_Count i) { return static_cast<char>(i % 251); };
    const auto holds_pattern = [&](const std::vector<char>& x) {
        for (MPI_Count i = 0; i < n; i += 4093)
            if (x[static_cast<std::size_t>(i)] != pattern(i)) return false;
        return x.back() == pattern(n - 1);
    };
    std::vector<char> x(static_cast<std::size_t>(world <= 1 ? n : 0), 0);
    if (world == 1)
        for (MPI_Count i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = pattern(i);
    MPI_Gatherv_c(x.data(), world == 1 ? n : 0, MPI_CHAR, x.data(), counts.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (world == 0) expect(holds_pattern(x), "gatherv of a 2^31 + 8 byte block");
    if (world == 1) std::fill(x.begin(), x.end(), 0);
    MPI_Scatterv_c(x.data(), counts.data(), displs.data(), MPI_CHAR, x.data(), world == 1 ? n : 0, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (world == 1) expect(holds_pattern(x), "scatterv of a 2^31 + 8 byte block");
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &g_comm);
    MPI_Comm_set_name(g_comm, "reversed");
    MPI_Comm_rank(g_comm, &me);
    MPI_Comm_size(g_comm, &P);
    for (int round = 0; round < 2; ++round) {
        rooted_and_reductions((round * 3 + 1) % P);
        blocks((round * 5 + 2) % P);
        reduce_scatters();
        vblocks((round * 2 + 1) % P);
    }
    far();
    shapes();
    no_bytes();
    if (argc > 1 && std::strcmp(argv[1], "big") == 0) {
        big();
        big_v();
    }
    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (bad == 0) std::printf("pmpi_large_count: %d checks passed on %d ranks\n", checks, P);
        else std::printf("pmpi_large_count: %d failures\n", bad);
    }
    MPI_Finalize();  // "reversed" left to it, so the library's per-class summary counts its calls
    return bad == 0 ? 0 : 1;
}
