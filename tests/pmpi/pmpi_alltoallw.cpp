// pmpi_alltoallw [rounds [null-empty]]: an ordinary MPI program's MPI_Alltoallw — blocking, non-blocking
// (MPI_Ialltoallw, then MPI_Wait) and persistent (MPI_Alltoallw_init; Open MPI 4.1:
// MPIX_Alltoallw_init; made once, started twice with new data, freed) — on the world communicator
// and on one of its ranks in reverse order named "reversed". Each pair's block has its own count
// (some zero) and, at each end, its own datatype: plain ints, ints spaced out by a resized type,
// or a derived contiguous type, the sender's and the receiver's of different kinds with the same
// signature; blocks lie at byte displacements with gaps between them, which must stay untouched;
// then plain ints back to back (in place for the library). Then in place (MPI_IN_PLACE,
// symmetric counts), and a non-blocking one whose receive datatype is freed before the wait.
// null-empty: an empty block's datatype is MPI_DATATYPE_NULL (MPICH's own accepts it, as MPI
// reads a block's datatype only for a positive count; Open MPI 4.1's refuses it). Every result is checked; rank 0 prints
// "pmpi_alltoallw: N checks passed on P ranks", exit status 1 on a wrong result.
#include <mpi.h>

#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define ALLTOALLW_INIT MPIX_Alltoallw_init
#elif MPI_VERSION >= 4
#define ALLTOALLW_INIT MPI_Alltoallw_init
#endif

namespace {

int failures = 0, checks = 0;
bool g_null_empty = false;  // `null-empty`: an empty block's datatype MPI_DATATYPE_NULL (MPICH takes it)
constexpr int kGap = -7;  // what lies between the blocks

void expect(bool ok, const std::string& what) {
    ++checks;
    if (ok) return;
    ++failures;
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    std::fprintf(stderr, "pmpi_alltoallw[%d]: WRONG %s\n", me, what.c_str());
}

int value(int from, int to, int i, int salt) { return from * 10000 + to * 100 + i % 53 + salt * 1000000; }

// The three kinds of block datatype, each n ints: plain, every other int (resized), a derived
// contiguous type of one int.
struct Kinds {
    MPI_Datatype type[3];
    Kinds() {
        type[0] = MPI_INT;
        MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &type[1]);
        MPI_Type_commit(&type[1]);
        MPI_Type_contiguous(1, MPI_INT, &type[2]);
        MPI_Type_commit(&type[2]);
    }
    ~Kinds() {
        MPI_Type_free(&type[1]);
        MPI_Type_free(&type[2]);
    }
    static int stride(int kind) { return kind == 1 ? 2 : 1; }  // ints from one element to the next
};

// One side of an all-to-all: per peer a count, a kind, a byte displacement, in a buffer of ints
// with gaps.
struct Side {
    std::vector<int> counts, kinds, displs;
    std::vector<MPI_Datatype> types;
    std::vector<int> buf;

    // packed: plain ints back to back from the fourth int on (an empty block anywhere: at 0),
    // which the library works on in place.
    Side(const Kinds& k, int P, const std::function<int(int)>& count, const std::function<int(int)>& kind,
         bool packed = false) {
        int at = 3;  // ints
        for (int j = 0; j < P; ++j) {
            counts.push_back(count(j));
            kinds.push_back(packed ? 0 : kind(j));
            types.push_back(g_null_empty && counts.back() == 0 ? MPI_DATATYPE_NULL : k.type[kinds.back()]);
            displs.push_back(packed && counts.back() == 0 ? 0 : at * static_cast<int>(sizeof(int)));
            at += counts.back() * Kinds::stride(kinds.back()) + (packed ? 0 : 2);
        }
        buf.assign(static_cast<std::size_t>(at + 3), kGap);
    }
    int& at(int j, int i) {
        return buf[static_cast<std::size_t>(displs[static_cast<std::size_t>(j)] / static_cast<int>(sizeof(int)) +
                                            i * Kinds::stride(kinds[static_cast<std::size_t>(j)]))];
    }
    void reset() { std::fill(buf.begin(), buf.end(), kGap); }
    // Block j holds want(i) at its elements; every other int is the gap's.
    bool holds(int P, const std::function<int(int, int)>& want) {
        std::vector<int> copy = buf;
        for (int j = 0; j < P; ++j)
            for (int i = 0; i < counts[static_cast<std::size_t>(j)]; ++i) {
                if (at(j, i) != want(j, i)) return false;
                at(j, i) = kGap;
            }
        bool gaps = true;
        for (int x : buf) gaps = gaps && x == kGap;
        buf = copy;
        return gaps;
    }
};

int pair_count(int from, int to, int n) { return (from + 2 * to + n) % 4 == 0 ? 0 : n + from; }

void exchange(MPI_Comm comm, const std::string& name, int n, const Kinds& k, bool packed = false) {
    int me = 0, P = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    Side send(k, P, [&](int j) { return pair_count(me, j, n); }, [&](int j) { return (me + j) % 3; }, packed);
    Side recv(k, P, [&](int j) { return pair_count(j, me, n); }, [&](int j) { return (j + 2 * me + 1) % 3; }, packed);
    const auto fill = [&](int salt) {
        recv.reset();
        for (int j = 0; j < P; ++j)
            for (int i = 0; i < send.counts[static_cast<std::size_t>(j)]; ++i) send.at(j, i) = value(me, j, i, salt);
    };
    const auto ok = [&](int salt) { return recv.holds(P, [&](int j, int i) { return value(j, me, i, salt); }); };
    const std::string what = name + " n=" + std::to_string(n);
    fill(1);
    MPI_Alltoallw(send.buf.data(), send.counts.data(), send.displs.data(), send.types.data(), recv.buf.data(),
                  recv.counts.data(), recv.displs.data(), recv.types.data(), comm);
    expect(ok(1), "MPI_Alltoallw " + what);
    fill(2);
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Ialltoallw(send.buf.data(), send.counts.data(), send.displs.data(), send.types.data(), recv.buf.data(),
                   recv.counts.data(), recv.displs.data(), recv.types.data(), comm, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect(ok(2) && r == MPI_REQUEST_NULL, "MPI_Ialltoallw " + what);
#ifdef ALLTOALLW_INIT
    ALLTOALLW_INIT(send.buf.data(), send.counts.data(), send.displs.data(), send.types.data(), recv.buf.data(),
                   recv.counts.data(), recv.displs.data(), recv.types.data(), comm, MPI_INFO_NULL, &r);
    for (int salt = 3; salt <= 4; ++salt) {
        fill(salt);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        expect(ok(salt), "persistent alltoallw, start " + std::to_string(salt - 2) + " " + what);
    }
    MPI_Request_free(&r);
#endif
}

// MPI_Ialltoallw whose receive datatype the program frees before MPI_Wait (MPI allows it: the
// datatype lives on until the operation completes), so unpacking at completion needs the
// library's hold: n ints from each rank, received every other int.
void freed_type(MPI_Comm comm, int n) {
    int me = 0, P = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const std::size_t p = static_cast<std::size_t>(P);
    std::vector<int> counts(p, n), sdispls(p), rdispls(p), in(p * static_cast<std::size_t>(n)), out(2 * in.size() + 1, kGap);
    for (int j = 0; j < P; ++j) {
        sdispls[static_cast<std::size_t>(j)] = j * n * static_cast<int>(sizeof(int));
        rdispls[static_cast<std::size_t>(j)] = (2 * j * n + 1) * static_cast<int>(sizeof(int));
        for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(j * n + i)] = value(me, j, i, 6);
    }
    MPI_Datatype spaced;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    const std::vector<MPI_Datatype> stypes(p, MPI_INT), rtypes(p, spaced);
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Ialltoallw(in.data(), counts.data(), sdispls.data(), stypes.data(), out.data(), counts.data(), rdispls.data(),
                   rtypes.data(), comm, &r);
    MPI_Type_free(&spaced);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    bool ok = out[0] == kGap;
    for (int j = 0; j < P; ++j)
        for (int i = 0; i < n; ++i) {
            const std::size_t at = static_cast<std::size_t>(2 * (j * n + i) + 1);
            ok = ok && out[at] == value(j, me, i, 6) && out[at + 1] == kGap;
        }
    expect(ok, "MPI_Ialltoallw, its receive type freed before the wait, n=" + std::to_string(n));
}

// MPI_IN_PLACE: each rank's blocks to and from j alike (symmetric counts), in its receive layout.
void in_place(MPI_Comm comm, const std::string& name, int n, const Kinds& k) {
    int me = 0, P = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    Side both(k, P, [&](int j) { return (me + j + n) % 4 == 0 ? 0 : n + me + j; }, [&](int j) { return (me + 2 * j) % 3; });
    for (int j = 0; j < P; ++j)
        for (int i = 0; i < both.counts[static_cast<std::size_t>(j)]; ++i) both.at(j, i) = value(me, j, i, 5);
    MPI_Alltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, both.buf.data(), both.counts.data(), both.displs.data(),
                  both.types.data(), comm);
    expect(both.holds(P, [&](int j, int i) { return value(j, me, i, 5); }),
           "MPI_Alltoallw in place " + name + " n=" + std::to_string(n));
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
    g_null_empty = argc > 2 && std::string(argv[2]) == "null-empty";
    int world = 0, P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -world, &reversed);
    MPI_Comm_set_name(reversed, "reversed");
    {
        const Kinds k;
        for (int round = 0; round < rounds; ++round)
            for (int n : {1, 7, 2000}) {
                exchange(MPI_COMM_WORLD, "world", n + round, k);
                exchange(reversed, "reversed", n + round, k);
                exchange(reversed, "reversed, packed", n + round, k, true);
                in_place(reversed, "reversed", n + round, k);
                freed_type(MPI_COMM_WORLD, n + round);
            }
    }
    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world == 0) {
        if (bad == 0) std::printf("pmpi_alltoallw: %d checks passed on %d ranks\n", checks, P);
        else std::printf("pmpi_alltoallw: %d failures\n", bad);
    }
    MPI_Comm_free(&reversed);
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
}
