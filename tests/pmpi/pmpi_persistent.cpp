// pmpi_persistent [ROUNDS]: the sixteen persistent collectives the PMPI library runs (MPI 4's
// MPI_..._init on MPICH 4; Open MPI 4.1's MPIX_..._init), on a communicator of the world's ranks
// in the reverse order, each made once and started ROUNDS times (default 5) with new data, in
// five ways by turn: first MPI_Startall with the odd ranks starting them in the reverse order
// (MPI 4 matches them by the order of the init calls) after a blocking allreduce of the same
// shape, the even ranks before it, then MPI_Waitall; MPI_Start and MPI_Wait one by one;
// MPI_Startall and MPI_Waitall; MPI_Startall then MPI_Testany until none is active;
// MPI_Startall then MPI_Waitsome; a persistent point-to-point pair always among them. Between
// rounds the handles must be inactive and the program's own: MPI_Wait, MPI_Test and
// MPI_Request_get_status on them return at once. The allgather's send type (a vector with gaps)
// is freed right after its init call, as MPI allows (not with PMPI_PERSISTENT_KEEP_TYPE set: Open
// MPI 4.1's own MPIX_Allgather_init then crashes at MPI_Start). MPI_Request_free, made by the
// even ranks before 1000 blocking allreduces and by the odd ones after, leaves MPI_REQUEST_NULL.
// Last, one persistent allreduce is kept unfreed on a communicator the program frees.
// Every result is checked; prints "pmpi_persistent: N checks passed on P ranks", exit status 1
// on a wrong result.
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
#define PINIT(name) MPIX_##name##_init
#elif MPI_VERSION >= 4
#define PINIT(name) MPI_##name##_init
#else
#error "pmpi_persistent needs MPI 4's persistent collectives or Open MPI's MPIX_ ones"
#endif

namespace {

int failures = 0;
int checks = 0;
int me = 0;
int P = 1;
MPI_Comm g_comm = MPI_COMM_NULL;  // the world's ranks in the reverse order, named "reversed"
constexpr int m = 300;  // elements a block

void expect(bool ok, const std::string& what) {
    ++checks;
    if (!ok) {
        ++failures;
        std::fprintf(stderr, "pmpi_persistent: rank %d: %s\n", me, what.c_str());
    }
}

// One persistent operation: its handle, how each round fills its inputs and checks its outputs.
struct Case {
    std::string name;
    MPI_Request handle = MPI_REQUEST_NULL;
    std::function<void(int)> prepare;
    std::function<bool(int)> correct;
};

std::vector<int> counts_from(int base) {
    std::vector<int> c(P);
    for (int j = 0; j < P; ++j) c[j] = base + j;
    return c;
}

std::vector<int> displs_of(const std::vector<int>& counts) {
    std::vector<int> d(counts.size(), 0);
    for (std::size_t j = 1; j < counts.size(); ++j) d[j] = d[j - 1] + counts[j - 1];
    return d;
}

// Buffers outlive the handles: they are bound to them from the init call to the free.
struct Buffers {
    std::vector<int> a = std::vector<int>(static_cast<std::size_t>(4 * m * P + 64)), b = a;
};

void add(std::vector<Case>& cases, std::string name, std::function<void(MPI_Request*)> init,
         std::function<void(int)> prepare, std::function<bool(int)> correct) {
    Case c{std::move(name), MPI_REQUEST_NULL, std::move(prepare), std::move(correct)};
    init(&c.handle);
    cases.push_back(std::move(c));
}

// Every output element e(i) of `v` from `from` for `n` elements equals f(i).
bool all(const std::vector<int>& v, int from, int n, const std::function<int(int)>& f) {
    for (int i = 0; i < n; ++i)
        if (v[from + i] != f(i)) return false;
    return true;
}

void rooted_cases(std::vector<Case>& cases, std::vector<Buffers>& buf) {
    MPI_Comm w = g_comm;
    Buffers& bc = buf[0];
    add(cases, "bcast", [&](MPI_Request* r) { PINIT(Bcast)(bc.a.data(), m, MPI_INT, P - 1, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m; ++i) bc.a[i] = me == P - 1 ? i * 7 + k : -1; },
        [&](int k) { return all(bc.a, 0, m, [&](int i) { return i * 7 + k; }); });
    Buffers& rd = buf[1];
    add(cases, "reduce", [&](MPI_Request* r) { PINIT(Reduce)(rd.a.data(), rd.b.data(), m, MPI_INT, MPI_SUM, 0, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m; ++i) rd.a[i] = me + i + k; },
        [&](int k) { return me != 0 || all(rd.b, 0, m, [&](int i) { return P * (P - 1) / 2 + P * (i + k); }); });
    Buffers& sc = buf[2];
    add(cases, "scatter", [&](MPI_Request* r) { PINIT(Scatter)(sc.a.data(), m, MPI_INT, sc.b.data(), m, MPI_INT, 0, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m * P; ++i) sc.a[i] = (i / m) * 1000 + i % m + k; },
        [&](int k) { return all(sc.b, 0, m, [&](int i) { return me * 1000 + i + k; }); });
    Buffers& ga = buf[3];
    add(cases, "gather", [&](MPI_Request* r) { PINIT(Gather)(ga.a.data(), m, MPI_INT, ga.b.data(), m, MPI_INT, P - 1, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m; ++i) ga.a[i] = me * 1000 + i + k; },
        [&](int k) { return me != P - 1 || all(ga.b, 0, m * P, [&](int i) { return (i / m) * 1000 + i % m + k; }); });
}

void reduction_cases(std::vector<Case>& cases, std::vector<Buffers>& buf) {
    MPI_Comm w = g_comm;
    Buffers& ar = buf[4];  // in place
    add(cases, "allreduce", [&](MPI_Request* r) { PINIT(Allreduce)(MPI_IN_PLACE, ar.a.data(), m, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m; ++i) ar.a[i] = me * i + k; },
        [&](int k) { return all(ar.a, 0, m, [&](int i) { return i * P * (P - 1) / 2 + P * k; }); });
    Buffers& sn = buf[5];
    add(cases, "scan", [&](MPI_Request* r) { PINIT(Scan)(sn.a.data(), sn.b.data(), m, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m; ++i) sn.a[i] = me + k + i; },
        [&](int k) { return all(sn.b, 0, m, [&](int i) { return me * (me + 1) / 2 + (me + 1) * (k + i); }); });
    Buffers& ex = buf[6];
    add(cases, "exscan", [&](MPI_Request* r) { PINIT(Exscan)(ex.a.data(), ex.b.data(), m, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m; ++i) ex.a[i] = me + k + i; },
        [&](int k) { return me == 0 || all(ex.b, 0, m, [&](int i) { return me * (me - 1) / 2 + me * (k + i); }); });
    Buffers& rb = buf[7];
    add(cases, "reduce_scatter_block", [&](MPI_Request* r) { PINIT(Reduce_scatter_block)(rb.a.data(), rb.b.data(), m, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m * P; ++i) rb.a[i] = me + i / m + i % m + k; },
        [&](int k) { return all(rb.b, 0, m, [&](int i) { return P * (P - 1) / 2 + P * (me + i + k); }); });
    static const std::vector<int> rcounts = counts_from(m);
    static const std::vector<int> rdispls = displs_of(rcounts);
    Buffers& rs = buf[8];
    add(cases, "reduce_scatter", [&](MPI_Request* r) { PINIT(Reduce_scatter)(rs.a.data(), rs.b.data(), rcounts.data(), MPI_INT, MPI_SUM, w, MPI_INFO_NULL, r); },
        [&](int k) {
            for (int j = 0; j < P; ++j)
                for (int i = 0; i < rcounts[j]; ++i) rs.a[rdispls[j] + i] = me + j + i + k;
        },
        [&](int k) { return all(rs.b, 0, rcounts[me], [&](int i) { return P * (P - 1) / 2 + P * (me + i + k); }); });
}

void exchange_cases(std::vector<Case>& cases, std::vector<Buffers>& buf) {
    MPI_Comm w = g_comm;
    Buffers& ag = buf[9];  // the send type: every other int, freed after the init call
    MPI_Datatype every_other = MPI_DATATYPE_NULL;
    MPI_Type_vector(m, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    add(cases, "allgather", [&](MPI_Request* r) { PINIT(Allgather)(ag.a.data(), 1, every_other, ag.b.data(), m, MPI_INT, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < 2 * m; ++i) ag.a[i] = me * 1000 + i + k; },
        [&](int k) { return all(ag.b, 0, m * P, [&](int i) { return (i / m) * 1000 + 2 * (i % m) + k; }); });
    if (!std::getenv("PMPI_PERSISTENT_KEEP_TYPE")) MPI_Type_free(&every_other);
    Buffers& aa = buf[10];
    add(cases, "alltoall", [&](MPI_Request* r) { PINIT(Alltoall)(aa.a.data(), m, MPI_INT, aa.b.data(), m, MPI_INT, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < m * P; ++i) aa.a[i] = me * 1000 + (i / m) * 10 + i % m + k; },
        [&](int k) { return all(aa.b, 0, m * P, [&](int i) { return (i / m) * 1000 + me * 10 + i % m + k; }); });
    static const std::vector<int> counts = counts_from(m);
    static const std::vector<int> displs = displs_of(counts);
    const auto gathered = [](const std::vector<int>& v, int k) {
        bool ok = true;
        for (int j = 0; j < P; ++j) ok = ok && all(v, displs[j], counts[j], [&](int i) { return j * 1000 + i + k; });
        return ok;
    };
    Buffers& av = buf[11];
    add(cases, "allgatherv", [&](MPI_Request* r) { PINIT(Allgatherv)(av.a.data(), counts[me], MPI_INT, av.b.data(), counts.data(), displs.data(), MPI_INT, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < counts[me]; ++i) av.a[i] = me * 1000 + i + k; },
        [&, gathered](int k) { return gathered(av.b, k); });
    Buffers& gv = buf[12];
    add(cases, "gatherv", [&](MPI_Request* r) { PINIT(Gatherv)(gv.a.data(), counts[me], MPI_INT, gv.b.data(), counts.data(), displs.data(), MPI_INT, 0, w, MPI_INFO_NULL, r); },
        [&](int k) { for (int i = 0; i < counts[me]; ++i) gv.a[i] = me * 1000 + i + k; },
        [&, gathered](int k) { return me != 0 || gathered(gv.b, k); });
    Buffers& sv = buf[13];
    add(cases, "scatterv", [&](MPI_Request* r) { PINIT(Scatterv)(sv.a.data(), counts.data(), displs.data(), MPI_INT, sv.b.data(), counts[me], MPI_INT, P - 1, w, MPI_INFO_NULL, r); },
        [&](int k) {
            for (int j = 0; j < P; ++j)
                for (int i = 0; i < counts[j]; ++i) sv.a[displs[j] + i] = j * 1000 + i + k;
        },
        [&](int k) { return all(sv.b, 0, counts[me], [&](int i) { return me * 1000 + i + k; }); });
    static std::vector<int> vcounts, vdispls;  // block j to or from rank j: 1 + (me + j) % 3 elements
    vcounts.assign(P, 0);
    for (int j = 0; j < P; ++j) vcounts[j] = 1 + (me + j) % 3;
    vdispls = displs_of(vcounts);
    Buffers& vv = buf[14];
    add(cases, "alltoallv", [&](MPI_Request* r) { PINIT(Alltoallv)(vv.a.data(), vcounts.data(), vdispls.data(), MPI_INT, vv.b.data(), vcounts.data(), vdispls.data(), MPI_INT, w, MPI_INFO_NULL, r); },
        [&](int k) {
            for (int j = 0; j < P; ++j)
                for (int i = 0; i < vcounts[j]; ++i) vv.a[vdispls[j] + i] = me * 1000 + j * 10 + i + k;
        },
        [&](int k) {
            bool ok = true;
            for (int j = 0; j < P; ++j) ok = ok && all(vv.b, vdispls[j], vcounts[j], [&](int i) { return j * 1000 + me * 10 + i + k; });
            return ok;
        });
    add(cases, "barrier", [&](MPI_Request* r) { PINIT(Barrier)(w, MPI_INFO_NULL, r); }, [](int) {}, [](int) { return true; });
}

// A persistent point-to-point pair around the ring, started among the collectives.
void ring_cases(std::vector<Case>& cases, std::vector<Buffers>& buf) {
    Buffers& ring = buf[15];
    const int next = (me + 1) % P, prev = (me + P - 1) % P;
    add(cases, "send_init", [&](MPI_Request* r) { MPI_Send_init(ring.a.data(), 1, MPI_INT, next, 5, g_comm, r); },
        [&](int k) { ring.a[0] = me * 100 + k; }, [](int) { return true; });
    add(cases, "recv_init", [&](MPI_Request* r) { MPI_Recv_init(ring.b.data(), 1, MPI_INT, prev, 5, g_comm, r); },
        [&](int) { ring.b[0] = -1; }, [prev, &ring](int k) { return ring.b[0] == prev * 100 + k; });
}

std::vector<MPI_Request> handles(const std::vector<Case>& cases) {
    std::vector<MPI_Request> h;
    for (const Case& c : cases) h.push_back(c.handle);
    return h;
}

// A blocking allreduce of the persistent allreduce's shape, checked.
void blocking_allreduce(int k) {
    std::vector<int> v(m);
    for (int i = 0; i < m; ++i) v[i] = me + i + k;
    MPI_Allreduce(MPI_IN_PLACE, v.data(), m, MPI_INT, MPI_SUM, g_comm);
    expect(all(v, 0, m, [&](int i) { return P * (P - 1) / 2 + P * (i + k); }), "a blocking MPI_Allreduce among the starts");
}

// Round k: started and completed the k-th of the five ways; the handles must come back.
void run_round(std::vector<Case>& cases, int k) {
    for (Case& c : cases) c.prepare(k);
    std::vector<MPI_Request> h = handles(cases);
    const int n = static_cast<int>(h.size());
    if (k % 5 == 0) {  // odd ranks start them in the reverse order, after a blocking collective
        std::vector<MPI_Request> order(h.rbegin(), h.rend());
        if (me % 2) blocking_allreduce(k);
        MPI_Startall(n, me % 2 ? order.data() : h.data());
        if (me % 2 == 0) blocking_allreduce(k);
        MPI_Waitall(n, h.data(), MPI_STATUSES_IGNORE);
    } else if (k % 5 == 1) {
        for (int i = 0; i < n; ++i) {  // the ring's send and receive: started both, then waited
            MPI_Start(&h[i]);
            if (cases[i].name != "send_init") MPI_Wait(&h[i], MPI_STATUS_IGNORE);
            if (cases[i].name == "recv_init") MPI_Wait(&h[i - 1], MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Startall(n, h.data());
        if (k % 5 == 2) {
            MPI_Waitall(n, h.data(), MPI_STATUSES_IGNORE);
        } else if (k % 5 == 3) {
            for (int index = 0, flag = 0; !(flag && index == MPI_UNDEFINED);)  // until none is active
                MPI_Testany(n, h.data(), &index, &flag, MPI_STATUS_IGNORE);
        } else {
            std::vector<int> indices(n);
            for (int done = 0; done != MPI_UNDEFINED;) MPI_Waitsome(n, h.data(), &done, indices.data(), MPI_STATUSES_IGNORE);
        }
    }
    const std::string way[5] = {"MPI_Startall in another order", "MPI_Start / MPI_Wait", "MPI_Startall / MPI_Waitall",
                                "MPI_Testany", "MPI_Waitsome"};
    for (int i = 0; i < n; ++i) {
        expect(h[i] == cases[i].handle, cases[i].name + ": the handle changed by " + way[k % 5]);
        expect(cases[i].correct(k), cases[i].name + ": wrong result in round " + std::to_string(k) + " (" + way[k % 5] + ")");
        int flag = 0;
        MPI_Test(&h[i], &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&h[i], MPI_STATUS_IGNORE);
        int done = 0;
        MPI_Request_get_status(h[i], &done, MPI_STATUS_IGNORE);
        expect(flag && done && h[i] == cases[i].handle, cases[i].name + ": not inactive after its round");
    }
}

// The handles freed at different points of the ranks' other collectives (MPI_Request_free is
// local), then more collectives than the library's tag blocks, checked.
void free_all(std::vector<Case>& cases) {
    constexpr int kMany = 1000;
    int sum = 0;
    if (me % 2 == 0)
        for (Case& c : cases) MPI_Request_free(&c.handle);
    for (int i = 0; i < kMany; ++i) {
        int one = 1, got = 0;
        MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, g_comm);
        sum += got;
    }
    if (me % 2)
        for (Case& c : cases) MPI_Request_free(&c.handle);
    expect(sum == kMany * P, "blocking allreduces around the frees");
    for (Case& c : cases) expect(c.handle == MPI_REQUEST_NULL, c.name + ": MPI_Request_free left a handle");
}

// A persistent allreduce on a duplicate that the program frees, the handle never freed (MPI
// does not ask for inactive ones to be): MPI_Finalize must still end.
void keep_one() {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(g_comm, &dup);
    int v = me + 1, sum = 0;
    MPI_Request kept = MPI_REQUEST_NULL;
    PINIT(Allreduce)(&v, &sum, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &kept);
    MPI_Start(&kept);
    MPI_Wait(&kept, MPI_STATUS_IGNORE);
    expect(sum == P * (P + 1) / 2, "the kept persistent allreduce");
    MPI_Comm_free(&dup);
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
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
    std::vector<Buffers> buf(16);
    std::vector<Case> cases;
    rooted_cases(cases, buf);
    reduction_cases(cases, buf);
    exchange_cases(cases, buf);
    ring_cases(cases, buf);
    for (int k = 0; k < rounds; ++k) run_round(cases, k);
    free_all(cases);
    keep_one();
    int failed = 0;
    MPI_Allreduce(&failures, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (failed == 0 && me == 0) std::printf("pmpi_persistent: %d checks passed on %d ranks\n", checks, P);
    MPI_Comm_free(&g_comm);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
