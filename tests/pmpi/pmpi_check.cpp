// An ordinary MPI program — it knows nothing of gridcoll — that calls the nine collectives the
// PMPI library intercepts, on several communicators (world, a duplicate, a split by parity, a
// split in reverse order, MPI_COMM_SELF), with contiguous and derived datatypes, MPI_IN_PLACE,
// predefined operations on several types, and user-defined operations (commutative and not),
// and checks every result against what MPI's definition says it must be.
//
//   pmpi_check [--thread-multiple] [elements...]
//       element counts per call (default 1 3 1000 70000); --thread-multiple initialises with
//       MPI_Init_thread(MPI_THREAD_MULTIPLE)
//
// A rank that sees a wrong value prints it and exits non-zero. Rank 0 ends with the line
// "pmpi_check: <n> checks passed on <p> ranks".
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pmpi_operands.hpp"

namespace {

int g_world_rank = 0;
long g_checks = 0, g_failures = 0;

void expect(bool ok, const std::string& what) {
    ++g_checks;
    if (ok) return;
    if (++g_failures <= 20) std::fprintf(stderr, "pmpi_check[%d]: WRONG %s\n", g_world_rank, what.c_str());
}

using pmpi_operands::affine;
using pmpi_operands::affine_fold;
using pmpi_operands::affine_of;
using pmpi_operands::value;

// A commutative user operation: sum modulo 1000.
void summod(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* x = static_cast<int*>(in);
    auto* y = static_cast<int*>(inout);
    for (int k = 0; k < *len; ++k) y[k] = ((y[k] + x[k]) % 1000 + 1000) % 1000;
}

struct Comm {
    MPI_Comm comm;
    std::string name;
    int rank, size;
};

void test_bcast(const Comm& c, long n) {
    for (int root : {0, c.size - 1, c.size / 2}) {
        std::vector<int> b(static_cast<std::size_t>(n), -7);
        if (c.rank == root)
            for (long i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = value(root, i, 1);
        MPI_Bcast(b.data(), static_cast<int>(n), MPI_INT, root, c.comm);
        bool ok = true;
        for (long i = 0; i < n; ++i) ok &= b[static_cast<std::size_t>(i)] == value(root, i, 1);
        expect(ok, c.name + " bcast int n=" + std::to_string(n) + " root=" + std::to_string(root));
    }
    // A vector type: every other int travels, the ints between stay as they were.
    MPI_Datatype every_other;
    MPI_Type_vector(static_cast<int>(n), 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    std::vector<int> v(static_cast<std::size_t>(2 * n), -3);
    if (c.rank == 0)
        for (long i = 0; i < n; ++i) v[static_cast<std::size_t>(2 * i)] = value(0, i, 2);
    MPI_Bcast(v.data(), 1, every_other, 0, c.comm);
    bool ok = true;
    for (long i = 0; i < n; ++i)
        ok &= v[static_cast<std::size_t>(2 * i)] == value(0, i, 2) && v[static_cast<std::size_t>(2 * i + 1)] == -3;
    expect(ok, c.name + " bcast vector n=" + std::to_string(n));
    MPI_Type_free(&every_other);
}

template <class T>
void check_allreduce(const Comm& c, long n, MPI_Datatype t, MPI_Op op, const char* what, bool in_place,
                     T (*combine)(T, T)) {
    std::vector<T> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<T>(value(c.rank, i, 3));
    if (in_place) out = in;
    MPI_Allreduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), static_cast<int>(n), t, op, c.comm);
    bool ok = true;
    for (long i = 0; i < n; ++i) {
        T e = static_cast<T>(value(0, i, 3));
        for (int r = 1; r < c.size; ++r) e = combine(e, static_cast<T>(value(r, i, 3)));
        ok &= out[static_cast<std::size_t>(i)] == e;
    }
    expect(ok, c.name + " allreduce " + what + (in_place ? " in-place" : "") + " n=" + std::to_string(n));
}

template <class T> T add(T a, T b) { return static_cast<T>(a + b); }
template <class T> T max_of(T a, T b) { return a > b ? a : b; }
template <class T> T min_of(T a, T b) { return a < b ? a : b; }
int bxor(int a, int b) { return a ^ b; }
int land(int a, int b) { return (a && b) ? 1 : 0; }

// MPI_Reduce of a sum to each of three roots, with and without MPI_IN_PLACE at the root.
void reduce_to_roots(const Comm& c, long n) {
    for (int root : {0, c.size - 1, c.size / 2})
        for (bool in_place : {false, true}) {
            std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), -9);
            for (long i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(c.rank, i, 4);
            if (in_place && c.rank == root) out = in;
            MPI_Reduce(in_place && c.rank == root ? MPI_IN_PLACE : in.data(), out.data(), static_cast<int>(n), MPI_INT,
                       MPI_SUM, root, c.comm);
            if (c.rank != root) continue;
            bool ok = true;
            for (long i = 0; i < n; ++i) {
                int e = 0;
                for (int r = 0; r < c.size; ++r) e += value(r, i, 4);
                ok &= out[static_cast<std::size_t>(i)] == e;
            }
            expect(ok, c.name + " reduce sum root=" + std::to_string(root) + (in_place ? " in-place" : "") +
                           " n=" + std::to_string(n));
        }
}

// User-defined operations: commutative (sum mod 1000) and not (affine maps, a contiguous type).
void user_operations(const Comm& c, long n) {
    MPI_Op op_summod, op_affine;
    MPI_Op_create(summod, 1, &op_summod);
    MPI_Op_create(affine, 0, &op_affine);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UINT32_T, &pair);
    MPI_Type_commit(&pair);
    {
        std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        for (long i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = (value(c.rank, i, 5) + 1000) % 1000;
        MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_INT, op_summod, c.comm);
        bool ok = true;
        for (long i = 0; i < n; ++i) {
            int e = 0;
            for (int r = 0; r < c.size; ++r) e = (e + (value(r, i, 5) + 1000) % 1000) % 1000;
            ok &= out[static_cast<std::size_t>(i)] == e;
        }
        expect(ok, c.name + " allreduce user commutative n=" + std::to_string(n));
    }
    for (int root : {0, c.size - 1}) {
        std::vector<std::uint32_t> in(static_cast<std::size_t>(2 * n)), out(static_cast<std::size_t>(2 * n));
        for (long i = 0; i < n; ++i) affine_of(c.rank, i, &in[static_cast<std::size_t>(2 * i)]);
        MPI_Reduce(in.data(), out.data(), static_cast<int>(n), pair, op_affine, root, c.comm);
        if (c.rank == root) {
            bool ok = true;
            for (long i = 0; i < n; ++i) {
                std::uint32_t e[2];
                affine_fold(0, c.size - 1, i, e);
                ok &= out[static_cast<std::size_t>(2 * i)] == e[0] && out[static_cast<std::size_t>(2 * i + 1)] == e[1];
            }
            expect(ok, c.name + " reduce user non-commutative root=" + std::to_string(root) + " n=" + std::to_string(n));
        }
    }
    {
        std::vector<std::uint32_t> in(static_cast<std::size_t>(2 * n)), out(static_cast<std::size_t>(2 * n));
        for (long i = 0; i < n; ++i) affine_of(c.rank, i, &in[static_cast<std::size_t>(2 * i)]);
        MPI_Scan(in.data(), out.data(), static_cast<int>(n), pair, op_affine, c.comm);
        bool ok = true;
        for (long i = 0; i < n; ++i) {
            std::uint32_t e[2];
            affine_fold(0, c.rank, i, e);
            ok &= out[static_cast<std::size_t>(2 * i)] == e[0] && out[static_cast<std::size_t>(2 * i + 1)] == e[1];
        }
        expect(ok, c.name + " scan user non-commutative n=" + std::to_string(n));
    }
    MPI_Type_free(&pair);
    MPI_Op_free(&op_summod);
    MPI_Op_free(&op_affine);
}

// MPI_Scan of doubles, with and without MPI_IN_PLACE; MAXLOC on a predefined pair type with padding.
void scan_and_maxloc(const Comm& c, long n) {
    for (bool in_place : {false, true}) {
        std::vector<double> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        for (long i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = value(c.rank, i, 6);
        if (in_place) out = in;
        MPI_Scan(in_place ? MPI_IN_PLACE : in.data(), out.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, c.comm);
        bool ok = true;
        for (long i = 0; i < n; ++i) {
            double e = 0;
            for (int r = 0; r <= c.rank; ++r) e += value(r, i, 6);
            ok &= out[static_cast<std::size_t>(i)] == e;
        }
        expect(ok, c.name + " scan double sum" + (in_place ? " in-place" : "") + " n=" + std::to_string(n));
    }
    {  // MPI_DOUBLE_INT
        struct DI {
            double v;
            int i;
        };
        std::vector<DI> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
        for (long i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = {static_cast<double>(value(c.rank, i, 7)), c.rank};
        MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_DOUBLE_INT, MPI_MAXLOC, c.comm);
        bool ok = true;
        for (long i = 0; i < n; ++i) {
            DI e{static_cast<double>(value(0, i, 7)), 0};
            for (int r = 1; r < c.size; ++r)
                if (value(r, i, 7) > e.v) e = {static_cast<double>(value(r, i, 7)), r};
            ok &= out[static_cast<std::size_t>(i)].v == e.v && out[static_cast<std::size_t>(i)].i == e.i;
        }
        expect(ok, c.name + " allreduce maxloc double_int n=" + std::to_string(n));
    }
}

void test_reductions(const Comm& c, long n) {
    check_allreduce<int>(c, n, MPI_INT, MPI_SUM, "int sum", false, add<int>);
    check_allreduce<int>(c, n, MPI_INT, MPI_SUM, "int sum", true, add<int>);
    check_allreduce<double>(c, n, MPI_DOUBLE, MPI_SUM, "double sum", false, add<double>);
    check_allreduce<float>(c, n, MPI_FLOAT, MPI_MAX, "float max", false, max_of<float>);
    check_allreduce<long long>(c, n, MPI_LONG_LONG, MPI_MIN, "long long min", false, min_of<long long>);
    check_allreduce<short>(c, n, MPI_SHORT, MPI_SUM, "short sum", false, add<short>);
    check_allreduce<int>(c, n, MPI_INT, MPI_BXOR, "int bxor", false, bxor);
    check_allreduce<int>(c, n, MPI_INT, MPI_LAND, "int land", false, land);
    reduce_to_roots(c, n);
    user_operations(c, n);
    scan_and_maxloc(c, n);
}

void test_blocks(const Comm& c, long n) {
    const auto P = static_cast<std::size_t>(c.size), N = static_cast<std::size_t>(n);
    const int cnt = static_cast<int>(n);
    for (int root : {0, c.size - 1}) {
        // scatter, with MPI_IN_PLACE at the root as a variant
        for (bool in_place : {false, true}) {
            std::vector<int> all(P * N), mine(N, -1);
            if (c.rank == root)
                for (std::size_t j = 0; j < P * N; ++j) all[j] = value(static_cast<int>(j / N), static_cast<long>(j % N), 8);
            const bool ip = in_place && c.rank == root;
            MPI_Scatter(all.data(), cnt, MPI_INT, ip ? MPI_IN_PLACE : mine.data(), cnt, MPI_INT, root, c.comm);
            if (ip) continue;
            bool ok = true;
            for (std::size_t i = 0; i < N; ++i) ok &= mine[i] == value(c.rank, static_cast<long>(i), 8);
            expect(ok, c.name + " scatter root=" + std::to_string(root) + (in_place ? " in-place" : "") +
                           " n=" + std::to_string(n));
        }
        // gather, with MPI_IN_PLACE at the root as a variant
        for (bool in_place : {false, true}) {
            std::vector<int> mine(N), all(P * N, -1);
            for (std::size_t i = 0; i < N; ++i) mine[i] = value(c.rank, static_cast<long>(i), 9);
            const bool ip = in_place && c.rank == root;
            if (ip) std::copy(mine.begin(), mine.end(), all.begin() + static_cast<long>(static_cast<std::size_t>(root) * N));
            MPI_Gather(ip ? MPI_IN_PLACE : mine.data(), cnt, MPI_INT, all.data(), cnt, MPI_INT, root, c.comm);
            if (c.rank != root) continue;
            bool ok = true;
            for (std::size_t j = 0; j < P * N; ++j) ok &= all[j] == value(static_cast<int>(j / N), static_cast<long>(j % N), 9);
            expect(ok, c.name + " gather root=" + std::to_string(root) + (in_place ? " in-place" : "") +
                           " n=" + std::to_string(n));
        }
    }
    // allgather: plain, in place, and into a strided receive type (every other int)
    for (int variant = 0; variant < 3; ++variant) {
        std::vector<int> mine(N), all(P * N * (variant == 2 ? 2 : 1), -4);
        for (std::size_t i = 0; i < N; ++i) mine[i] = value(c.rank, static_cast<long>(i), 10);
        MPI_Datatype rt = MPI_INT;
        if (variant == 2) {
            MPI_Datatype v;
            MPI_Type_vector(1, 1, 1, MPI_INT, &v);
            MPI_Type_create_resized(v, 0, 2 * sizeof(int), &rt);  // one int, then a hole
            MPI_Type_commit(&rt);
            MPI_Type_free(&v);
        }
        if (variant == 1) std::copy(mine.begin(), mine.end(), all.begin() + static_cast<long>(static_cast<std::size_t>(c.rank) * N));
        MPI_Allgather(variant == 1 ? MPI_IN_PLACE : mine.data(), cnt, MPI_INT, all.data(), cnt, rt, c.comm);
        bool ok = true;
        const std::size_t stride = variant == 2 ? 2 : 1;
        for (std::size_t j = 0; j < P * N; ++j) {
            ok &= all[j * stride] == value(static_cast<int>(j / N), static_cast<long>(j % N), 10);
            if (stride == 2) ok &= all[j * 2 + 1] == -4;
        }
        expect(ok, c.name + " allgather variant " + std::to_string(variant) + " n=" + std::to_string(n));
        if (variant == 2) MPI_Type_free(&rt);
    }
    // alltoall: plain and in place
    for (bool in_place : {false, true}) {
        std::vector<int> out(P * N), in(P * N, -2);
        for (std::size_t j = 0; j < P * N; ++j) out[j] = value(c.rank * 1000 + static_cast<int>(j / N), static_cast<long>(j % N), 11);
        if (in_place) in = out;
        MPI_Alltoall(in_place ? MPI_IN_PLACE : out.data(), cnt, MPI_INT, in.data(), cnt, MPI_INT, c.comm);
        bool ok = true;
        for (std::size_t j = 0; j < P * N; ++j)
            ok &= in[j] == value(static_cast<int>(j / N) * 1000 + c.rank, static_cast<long>(j % N), 11);
        expect(ok, c.name + " alltoall" + std::string(in_place ? " in-place" : "") + " n=" + std::to_string(n));
    }
}

void test_comm(const Comm& c, const std::vector<long>& counts) {
    for (long n : counts) {
        test_bcast(c, n);
        test_reductions(c, n);
        // blocks: P x n per rank; keep the largest modest
        test_blocks(c, n > 20000 ? n / 8 : n);
    }
    // barrier: it must return at every rank (a hang fails the test by its timeout); the
    // verbose log shows which method ran
    for (int k = 0; k < 3; ++k) expect(MPI_Barrier(c.comm) == MPI_SUCCESS, c.name + " barrier");
}

}  // namespace

int main(int argc, char** argv) {
    int first = 1;
    if (argc > 1 && std::string(argv[1]) == "--thread-multiple") {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        first = 2;
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<long> counts;
    for (int i = first; i < argc; ++i) {
        char* end = nullptr;
        const long n = std::strtol(argv[i], &end, 10);
        if (!end || *end || n < 1) {
            if (g_world_rank == 0) std::fprintf(stderr, "pmpi_check: bad element count '%s'\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
        counts.push_back(n);
    }
    if (counts.empty()) counts = {1, 3, 1000, 70000};

    std::vector<Comm> comms;
    comms.push_back({MPI_COMM_WORLD, "world", g_world_rank, size});
    MPI_Comm dup, parity, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, g_world_rank, &parity);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - g_world_rank, &reversed);
    for (auto [comm, name] : {std::pair{dup, "dup"}, std::pair{parity, "parity-split"}, std::pair{reversed, "reversed"},
                              std::pair{MPI_COMM_SELF, "self"}}) {
        Comm c{comm, name, 0, 1};
        MPI_Comm_rank(comm, &c.rank);
        MPI_Comm_size(comm, &c.size);
        comms.push_back(c);
    }
    // Two communicators in turn, call by call: their states must not mix.
    for (const Comm& c : comms) test_comm(c, counts);
    for (long n : counts) {
        test_bcast(comms[2], n);
        test_bcast(comms[1], n);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&reversed);
    // A freed communicator's handle may come back: the new one must get its own state.
    MPI_Comm again;
    MPI_Comm_split(MPI_COMM_WORLD, g_world_rank < size / 2, g_world_rank, &again);
    Comm c{again, "resplit", 0, 1};
    MPI_Comm_rank(again, &c.rank);
    MPI_Comm_size(again, &c.size);
    test_bcast(c, counts.back());
    test_reductions(c, counts.front());
    MPI_Comm_free(&again);

    long failures = g_failures;
    if (g_world_rank == 0) std::printf("pmpi_check: %ld checks %s on %d ranks\n", g_checks,
                                       failures ? "FAILED" : "passed", size);
    MPI_Finalize();
    if (failures) std::fprintf(stderr, "pmpi_check[%d]: %ld of %ld checks wrong\n", g_world_rank, failures, g_checks);
    return failures ? 1 : 0;
}
