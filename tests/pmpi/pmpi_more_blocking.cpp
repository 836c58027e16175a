// pmpi_more: the seven collectives beyond the classic nine, blocking, checked.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "pmpi_more.hpp"

namespace pmpi_more {

namespace {

std::string where(const Comm& c, const char* what, long n) {
    return std::string(what) + " on " + c.name + " n=" + std::to_string(n) + " rank " + std::to_string(c.rank);
}

void reduce_scatters(const Comm& c, long n) {
    const int P = c.size;
    std::vector<int> counts(static_cast<std::size_t>(P));
    for (int j = 0; j < P; ++j) counts[static_cast<std::size_t>(j)] = count_of(j, n);
    const long total = std::accumulate(counts.begin(), counts.end(), 0L);
    long first = 0;
    for (int j = 0; j < c.rank; ++j) first += counts[static_cast<std::size_t>(j)];
    std::vector<int> in(static_cast<std::size_t>(total)), out(static_cast<std::size_t>(counts[static_cast<std::size_t>(c.rank)] + 1), -999);
    for (long i = 0; i < total; ++i) in[static_cast<std::size_t>(i)] = value(c.rank, i, 3);
    MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, c.comm);
    bool ok = out.back() == -999;
    for (int i = 0; i < counts[static_cast<std::size_t>(c.rank)]; ++i) {
        long want = 0;
        for (int r = 0; r < P; ++r) want += value(r, first + i, 3);
        ok = ok && out[static_cast<std::size_t>(i)] == want;
    }
    expect(ok, where(c, "MPI_Reduce_scatter sum", n));
    // In place, non-commutative: pairs of uint32 under the affine operation.
    MPI_Op op;
    MPI_Op_create(affine, 0, &op);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UINT32_T, &pair);
    MPI_Type_commit(&pair);
    std::vector<std::uint32_t> buf(static_cast<std::size_t>(2 * total));
    for (long i = 0; i < total; ++i) affine_of(c.rank, i, &buf[static_cast<std::size_t>(2 * i)]);
    MPI_Reduce_scatter(MPI_IN_PLACE, buf.data(), counts.data(), pair, op, c.comm);
    ok = true;
    for (int i = 0; i < counts[static_cast<std::size_t>(c.rank)]; ++i) {
        std::uint32_t want[2];
        affine_fold(0, P - 1, first + i, want);
        ok = ok && buf[static_cast<std::size_t>(2 * i)] == want[0] && buf[static_cast<std::size_t>(2 * i + 1)] == want[1];
    }
    expect(ok, where(c, "MPI_Reduce_scatter in place, non-commutative", n));
    // Block form, doubles, in place.
    std::vector<double> d(static_cast<std::size_t>(n * P));
    for (long i = 0; i < n * P; ++i) d[static_cast<std::size_t>(i)] = value(c.rank, i, 5);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, d.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, c.comm);
    ok = true;
    for (long i = 0; i < n; ++i) {
        double want = 0;
        for (int r = 0; r < P; ++r) want += value(r, c.rank * n + i, 5);
        ok = ok && d[static_cast<std::size_t>(i)] == want;
    }
    expect(ok, where(c, "MPI_Reduce_scatter_block in place", n));
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
}

void exscans(const Comm& c, long n) {
    std::vector<long> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), -7);
    for (long i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(c.rank, i, 9);
    MPI_Exscan(in.data(), out.data(), static_cast<int>(n), MPI_LONG, MPI_SUM, c.comm);
    bool ok = true;
    for (long i = 0; i < n && c.rank > 0; ++i) {
        long want = 0;
        for (int r = 0; r < c.rank; ++r) want += value(r, i, 9);
        ok = ok && out[static_cast<std::size_t>(i)] == want;
    }
    expect(ok, where(c, "MPI_Exscan", n));
    MPI_Op op;
    MPI_Op_create(affine, 0, &op);
    std::vector<std::uint32_t> buf(static_cast<std::size_t>(2 * n));
    for (long i = 0; i < n; ++i) affine_of(c.rank, i, &buf[static_cast<std::size_t>(2 * i)]);
    MPI_Exscan(MPI_IN_PLACE, buf.data(), static_cast<int>(2 * n) / 2, MPI_UINT64_T, op, c.comm);
    ok = true;
    for (long i = 0; i < n && c.rank > 0; ++i) {
        std::uint32_t want[2];
        affine_fold(0, c.rank - 1, i, want);
        ok = ok && buf[static_cast<std::size_t>(2 * i)] == want[0] && buf[static_cast<std::size_t>(2 * i + 1)] == want[1];
    }
    expect(ok, where(c, "MPI_Exscan in place, non-commutative", n));
    MPI_Op_free(&op);
}

// Displacements with a gap of one element after every block.
std::vector<int> gapped(const std::vector<int>& counts) {
    std::vector<int> d(counts.size());
    int at = 0;
    for (std::size_t j = 0; j < counts.size(); ++j) {
        d[j] = at;
        at += counts[j] + 1;
    }
    return d;
}

void vgathers(const Comm& c, long n) {
    const int P = c.size;
    std::vector<int> counts(static_cast<std::size_t>(P));
    for (int j = 0; j < P; ++j) counts[static_cast<std::size_t>(j)] = count_of(j, n);
    const std::vector<int> displs = gapped(counts);
    const int span = displs.back() + counts.back() + 1;
    const int mine = counts[static_cast<std::size_t>(c.rank)];
    std::vector<int> in(static_cast<std::size_t>(mine) + 1);
    for (int i = 0; i < mine; ++i) in[static_cast<std::size_t>(i)] = value(c.rank, i, 11);
    const auto check_all = [&](const std::vector<int>& out, const char* what) {
        bool ok = true;
        for (int j = 0; j < P; ++j) {
            for (int i = 0; i < counts[static_cast<std::size_t>(j)]; ++i)
                ok = ok && out[static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] + i)] == value(j, i, 11);
            ok = ok && out[static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] + counts[static_cast<std::size_t>(j)])] == -5;
        }
        expect(ok, where(c, what, n));
    };
    std::vector<int> out(static_cast<std::size_t>(span), -5);
    MPI_Allgatherv(in.data(), mine, MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT, c.comm);
    check_all(out, "MPI_Allgatherv, gaps");
    // In place, packed displacements.
    std::vector<int> packed(counts.size());
    std::exclusive_scan(counts.begin(), counts.end(), packed.begin(), 0);
    std::vector<int> all(static_cast<std::size_t>(packed.back() + counts.back()), -5);
    for (int i = 0; i < mine; ++i) all[static_cast<std::size_t>(packed[static_cast<std::size_t>(c.rank)] + i)] = value(c.rank, i, 11);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), counts.data(), packed.data(), MPI_INT, c.comm);
    bool ok = true;
    for (int j = 0; j < P; ++j)
        for (int i = 0; i < counts[static_cast<std::size_t>(j)]; ++i)
            ok = ok && all[static_cast<std::size_t>(packed[static_cast<std::size_t>(j)] + i)] == value(j, i, 11);
    expect(ok, where(c, "MPI_Allgatherv in place", n));
    // Gatherv to the last rank, received with a type with gaps (an int every 8 bytes).
    const int root = P - 1;
    MPI_Datatype spaced;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    std::vector<int> wide(static_cast<std::size_t>(2 * span), -5);
    MPI_Gatherv(in.data(), mine, MPI_INT, wide.data(), counts.data(), displs.data(), spaced, root, c.comm);
    if (c.rank == root) {
        std::vector<int> narrow(static_cast<std::size_t>(span));
        for (int k = 0; k < span; ++k) narrow[static_cast<std::size_t>(k)] = wide[static_cast<std::size_t>(2 * k)];
        check_all(narrow, "MPI_Gatherv, gaps, resized type");
    }
    MPI_Type_free(&spaced);
    // Scatterv from rank 0: rank j gets its block.
    std::vector<int> from(static_cast<std::size_t>(span), -5);
    for (int j = 0; j < P; ++j)
        for (int i = 0; i < counts[static_cast<std::size_t>(j)]; ++i)
            from[static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] + i)] = value(j, i, 13);
    std::vector<int> got(static_cast<std::size_t>(mine) + 1, -5);
    MPI_Scatterv(from.data(), counts.data(), displs.data(), MPI_INT, got.data(), mine, MPI_INT, 0, c.comm);
    ok = got[static_cast<std::size_t>(mine)] == -5;
    for (int i = 0; i < mine; ++i) ok = ok && got[static_cast<std::size_t>(i)] == value(c.rank, i, 13);
    expect(ok, where(c, "MPI_Scatterv, gaps", n));
}

// Ranks that send or receive nothing with a type with gaps, on a fresh communicator (its
// scratch buffers not yet grown, so zero bytes of them are a null pointer, which MPI_Pack
// refuses: the library once stopped the job there). Gatherv of count_of's blocks to rank 0,
// then the same blocks scattered back; both sides spaced an int every 8 bytes.
void spaced_empty_blocks(const Comm& c, long n) {
    MPI_Comm fresh;
    MPI_Comm_dup(c.comm, &fresh);
    MPI_Datatype spaced;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    const int P = c.size, mine = count_of(c.rank, n);
    std::vector<int> counts(static_cast<std::size_t>(P)), displs(static_cast<std::size_t>(P), 0);
    for (int j = 0; j < P; ++j) counts[static_cast<std::size_t>(j)] = count_of(j, n);
    std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
    const std::size_t total = static_cast<std::size_t>(displs.back() + counts.back());
    std::vector<int> in(2 * static_cast<std::size_t>(mine) + 1, -5), all(2 * total + 1, -5);
    for (int i = 0; i < mine; ++i) in[2 * static_cast<std::size_t>(i)] = value(c.rank, i, 17);
    MPI_Gatherv(in.data(), mine, spaced, all.data(), counts.data(), displs.data(), spaced, 0, fresh);
    bool ok = true;
    for (int j = 0; j < P && c.rank == 0; ++j)
        for (int i = 0; i < counts[static_cast<std::size_t>(j)]; ++i)
            ok = ok && all[2 * static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] + i)] == value(j, i, 17);
    expect(ok, where(c, "MPI_Gatherv, spaced types, empty blocks, fresh communicator", n));
    std::fill(in.begin(), in.end(), -5);
    MPI_Scatterv(all.data(), counts.data(), displs.data(), spaced, in.data(), mine, spaced, 0, fresh);
    ok = true;  // each rank its own block back, the gaps untouched
    for (int i = 0; i < mine; ++i)
        ok = ok && in[2 * static_cast<std::size_t>(i)] == value(c.rank, i, 17) && in[2 * static_cast<std::size_t>(i) + 1] == -5;
    expect(ok, where(c, "MPI_Scatterv, spaced types, empty blocks, fresh communicator", n));
    MPI_Type_free(&spaced);
    MPI_Comm_free(&fresh);
}

// All-to-all with counts that differ per pair, some zero; gaps in both buffers.
int pair_count(int from, int to, long n) { return (from + 2 * to + static_cast<int>(n)) % 4 == 0 ? 0 : static_cast<int>(n) + from; }
int pair_value(int from, int to, int i) { return from * 1000 + to * 10 + i % 7; }

void valltoall(const Comm& c, long n) {
    const int P = c.size;
    std::vector<int> sc(static_cast<std::size_t>(P)), rc(static_cast<std::size_t>(P));
    for (int j = 0; j < P; ++j) {
        sc[static_cast<std::size_t>(j)] = pair_count(c.rank, j, n);
        rc[static_cast<std::size_t>(j)] = pair_count(j, c.rank, n);
    }
    const std::vector<int> sd = gapped(sc), rd = gapped(rc);
    std::vector<int> in(static_cast<std::size_t>(sd.back() + sc.back() + 1), -5), out(static_cast<std::size_t>(rd.back() + rc.back() + 1), -5);
    for (int j = 0; j < P; ++j)
        for (int i = 0; i < sc[static_cast<std::size_t>(j)]; ++i) in[static_cast<std::size_t>(sd[static_cast<std::size_t>(j)] + i)] = pair_value(c.rank, j, i);
    MPI_Alltoallv(in.data(), sc.data(), sd.data(), MPI_INT, out.data(), rc.data(), rd.data(), MPI_INT, c.comm);
    bool ok = true;
    for (int j = 0; j < P; ++j) {
        for (int i = 0; i < rc[static_cast<std::size_t>(j)]; ++i)
            ok = ok && out[static_cast<std::size_t>(rd[static_cast<std::size_t>(j)] + i)] == pair_value(j, c.rank, i);
        ok = ok && out[static_cast<std::size_t>(rd[static_cast<std::size_t>(j)] + rc[static_cast<std::size_t>(j)])] == -5;
    }
    expect(ok, where(c, "MPI_Alltoallv, gaps", n));
}

// A send buffer that is the receive buffer (erroneous: MPI_IN_PLACE is MPI's way): with the
// library MPI_Allreduce reports MPI_ERR_BUFFER, as Open MPI (more than one element) and MPICH do;
// MPI_Scan either reports
// it (MPICH) or gives what MPI_IN_PLACE would (Open MPI computes on), never a wrong sum. Run with
// the library only (PMPI_MORE_WITH_LIBRARY): Open MPI's own scan is not judged here.
void aliased_buffers(const Comm& c, long n) {
    if (c.size < 2 || n <= 0) return;
    MPI_Errhandler before = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(c.comm, &before);
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    const auto error_class = [](int rc) {
        int cls = rc;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        return cls;
    };
    std::vector<int> b(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = value(c.rank, i, 5);
    int rc = MPI_Allreduce(b.data(), b.data(), static_cast<int>(n), MPI_INT, MPI_SUM, c.comm);
    bool ok = error_class(rc) == MPI_ERR_BUFFER || (rc == MPI_SUCCESS && n == 1);  // Open MPI: one element computes
    for (long i = 0; rc == MPI_SUCCESS && i < n; ++i) {
        long want = 0;
        for (int r = 0; r < c.size; ++r) want += value(r, i, 5);
        ok = ok && b[static_cast<std::size_t>(i)] == want;
    }
    expect(ok, where(c, "MPI_Allreduce on aliased buffers: MPI_ERR_BUFFER (or, one element, the sum)", n));
    for (long i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = value(c.rank, i, 5);
    rc = MPI_Scan(b.data(), b.data(), static_cast<int>(n), MPI_INT, MPI_SUM, c.comm);
    ok = rc == MPI_SUCCESS || error_class(rc) == MPI_ERR_BUFFER;
    for (long i = 0; rc == MPI_SUCCESS && i < n; ++i) {
        long want = 0;
        for (int r = 0; r <= c.rank; ++r) want += value(r, i, 5);
        ok = ok && b[static_cast<std::size_t>(i)] == want;
    }
    expect(ok, where(c, "MPI_Scan on aliased buffers: the in-place result or MPI_ERR_BUFFER", n));
    MPI_Comm_set_errhandler(c.comm, before);
    MPI_Errhandler_free(&before);
}

// A predefined operation on a datatype MPI does not define it on (MPI_MAX on MPI_BYTE: MPICH
// refuses it, Open MPI reduces; MPI_LAND on MPI_FLOAT the other way round) fails, with errors
// returned, exactly where MPI itself refuses the pair (asked here of a one-rank MPI_Allreduce,
// which reduces nothing), in every reduction and its non-blocking form; a pair MPI defines
// succeeds, its sums right.
void undefined_pairs(const Comm& c, long n) {
    if (n <= 0) return;
    MPI_Comm self = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    MPI_Errhandler before = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(c.comm, &before);
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    const struct { MPI_Op op; MPI_Datatype type; const char* name; } pairs[] = {
        {MPI_SUM, MPI_INT, "MPI_SUM on MPI_INT"},
        {MPI_MAX, MPI_BYTE, "MPI_MAX on MPI_BYTE"},
#ifndef MPICH_VERSION  // MPICH 4.0 accepts it, then asserts in its own reduction (opland.c)
        {MPI_LAND, MPI_FLOAT, "MPI_LAND on MPI_FLOAT"},
#endif
        {MPI_BAND, MPI_DOUBLE, "MPI_BAND on MPI_DOUBLE"},
        {MPI_MAX, MPI_C_DOUBLE_COMPLEX, "MPI_MAX on MPI_C_DOUBLE_COMPLEX"},
        {MPI_MAXLOC, MPI_INT, "MPI_MAXLOC on MPI_INT"},
        {MPI_SUM, MPI_2INT, "MPI_SUM on MPI_2INT"},
        {MPI_REPLACE, MPI_INT, "MPI_REPLACE on MPI_INT"}};
    const std::size_t count = static_cast<std::size_t>(n);
    std::vector<std::byte> in(count * 16 * static_cast<std::size_t>(c.size)), out(in.size());
    for (const auto& p : pairs) {
        std::byte one[16] = {}, got[16] = {};
        const bool defined = MPI_Allreduce(one, got, 1, p.type, p.op, self) == MPI_SUCCESS;
        std::vector<int> ints(count * static_cast<std::size_t>(c.size));
        for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = value(c.rank, static_cast<long>(i), 9);
        if (p.type == MPI_INT) std::memcpy(in.data(), ints.data(), ints.size() * sizeof(int));
        const int N = static_cast<int>(n);
        MPI_Request req = MPI_REQUEST_NULL;
        const int rcs[] = {MPI_Allreduce(in.data(), out.data(), N, p.type, p.op, c.comm),
                           MPI_Reduce(in.data(), out.data(), N, p.type, p.op, 0, c.comm),
                           MPI_Scan(in.data(), out.data(), N, p.type, p.op, c.comm),
                           MPI_Reduce_scatter_block(in.data(), out.data(), N, p.type, p.op, c.comm),
                           MPI_Iallreduce(in.data(), out.data(), N, p.type, p.op, c.comm, &req)};
        if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
        bool ok = true;
        for (int rc : rcs) ok = ok && (rc == MPI_SUCCESS) == defined;
        if (defined && p.op == MPI_SUM && p.type == MPI_INT) {
            const int* sums = reinterpret_cast<const int*>(out.data());
            for (long i = 0; i < n; ++i) {
                long want = 0;
                for (int r = 0; r < c.size; ++r) want += value(r, i, 9);
                ok = ok && sums[i] == want;
            }
        }
        const std::string what = std::string(p.name) + (defined ? ": succeeds, as MPI defines it" : ": fails, as in MPI");
        expect(ok, where(c, what.c_str(), n));
    }
    MPI_Comm_set_errhandler(c.comm, before);
    MPI_Errhandler_free(&before);
    MPI_Comm_free(&self);
}

}  // namespace

void test_blocking_more(const Comm& c, long n) {
    reduce_scatters(c, n);
    exscans(c, n);
    vgathers(c, n);
    spaced_empty_blocks(c, n);
    valltoall(c, n);
    static const bool with_library = std::getenv("PMPI_MORE_WITH_LIBRARY") != nullptr;
    if (with_library) aliased_buffers(c, n);
    undefined_pairs(c, n);
}

}  // namespace pmpi_more
