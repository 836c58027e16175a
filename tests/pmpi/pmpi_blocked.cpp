// pmpi_blocked: blocking calls while a non-blocking collective is pending, which must still move
// on (MPI's progress rule), progress thread or not. First a blocking collective: ranks 0 to 2
// start a broadcast A rooted at rank 0 and then wait in a blocking broadcast B rooted at rank 3;
// rank 3 starts A, waits for it, and only then roots B. A reaches rank 3 through another rank (it
// is the last of a binomial tree from rank 0), so A finishes only if that rank advances it from
// inside B. Then blocking point-to-point calls, one kind a round: every rank but 3 starts a
// broadcast from rank 0 and waits in MPI_Recv, MPI_Probe, MPI_Mprobe (not under SMPI, which
// lacks it), MPI_Sendrecv, MPI_Sendrecv_replace or MPI_Ssend for rank 3, which answers only once
// its broadcast is done (MPI_Sendrecv_replace with a strided datatype). A library that advanced
// pending operations only in the program's waits and tests would hang here (the test's
// timeout). Then a completed non-blocking broadcast's request given to MPI_Waitany and
// MPI_Testany with nothing pending, MPI_Recv / MPI_Sendrecv with MPI_PROC_NULL while one is
// pending (their statuses), and one MPI_Waitall over a broadcast, a persistent receive and a send
// (their statuses), and a null request and a native scatter's beside a broadcast's. Last, the program's own reduction function in
// a blocking allreduce while a non-blocking one with it is pending: it must never run twice at
// once. 4 ranks or more; prints "pmpi_blocked: passed on R ranks" and exits 0. With the argument
// `exit`, every rank then leaves by exit(3) without MPI_Finalize, as programs do on their error
// paths: it must end with that status, not abort (a progress thread still running).
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kInts = 8, kLast = 3;

enum Kind { kRecv, kProbe, kMprobe, kSendrecv, kReplace, kSsend, kKinds };
const char* const kNames[kKinds] = {"MPI_Recv", "MPI_Probe", "MPI_Mprobe", "MPI_Sendrecv", "MPI_Sendrecv_replace",
                                    "MPI_Ssend"};

// A rank other than kLast: waits in the blocking call of `kind` for kLast. How many wrong values.
int wait_in(Kind kind, int rank) {
    int in = -1, out = rank;
    MPI_Status status;
    switch (kind) {
        case kRecv:
            MPI_Recv(&in, 1, MPI_INT, kLast, 7, MPI_COMM_WORLD, &status);
            break;
        case kProbe:
            MPI_Probe(kLast, 7, MPI_COMM_WORLD, &status);
            MPI_Recv(&in, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break;
        case kMprobe: {  // (not under SMPI: SimGrid 3.32 has no MPI_Mprobe)
            MPI_Message message;
            MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &message, &status);
            MPI_Mrecv(&in, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
            break;
        }
        case kSendrecv:
            MPI_Sendrecv(&out, 1, MPI_INT, kLast, 7, &in, 1, MPI_INT, kLast, 7, MPI_COMM_WORLD, &status);
            break;
        case kReplace: {  // two elements of a strided type: ints 0, 3, 4, 7 of 8; the rest untouched
            MPI_Datatype strided;
            MPI_Type_vector(2, 1, 3, MPI_INT, &strided);
            MPI_Type_commit(&strided);
            int buf[8];
            for (int j = 0; j < 8; ++j) buf[j] = j == 0 ? out : -1 - j;
            MPI_Sendrecv_replace(buf, 2, strided, kLast, 7, kLast, 7, MPI_COMM_WORLD, &status);
            MPI_Type_free(&strided);
            int wrong = 0;
            for (int j : {1, 2, 5, 6}) wrong += buf[j] != -1 - j;
            for (int j : {3, 4, 7}) wrong += buf[j] != 1000 + rank + j;
            in = buf[0];
            int count = -1;
            MPI_Get_count(&status, MPI_INT, &count);
            return wrong + (in != 1000 + rank) + (count != 4) + (status.MPI_SOURCE != kLast);
        }
        case kSsend:
            MPI_Ssend(&out, 1, MPI_INT, kLast, 7, MPI_COMM_WORLD);
            return 0;
        default:
            return 1;
    }
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    return (in != 1000 + rank) + (count != 1) + (status.MPI_SOURCE != kLast);
}

// kLast, its broadcast done: answers every other rank as `kind` needs. How many wrong values.
int answer(Kind kind, int size) {
    int wrong = 0;
    for (int r = 0; r < size; ++r) {
        if (r == kLast) continue;
        int reply[4] = {1000 + r, 1003 + r, 1004 + r, 1007 + r}, got[4] = {-1, -1, -1, -1};
        const int n = kind == kReplace ? 4 : 1;  // the strided buffer's four ints, sent by r as 0, 3, 4, 7
        if (kind == kSendrecv || kind == kReplace || kind == kSsend) {
            MPI_Recv(got, n, MPI_INT, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            wrong += got[0] != r;
            if (kind == kReplace) wrong += (got[1] != -4) + (got[2] != -5) + (got[3] != -8);
        }
        if (kind != kSsend) MPI_Send(reply, n, MPI_INT, r, 7, MPI_COMM_WORLD);
    }
    return wrong;
}

// One round of blocking point-to-point calls of `kind` while broadcast C is pending.
int point_to_point_round(Kind kind, int rank, int size) {
    int c[kInts];
    for (int j = 0; j < kInts; ++j) c[j] = rank == 0 ? 300 + kind + j : -1;
    MPI_Request request;
    MPI_Ibcast(c, kInts, MPI_INT, 0, MPI_COMM_WORLD, &request);
    int wrong = 0;
    if (rank == kLast) {
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        wrong += answer(kind, size);
    } else {
        wrong += wait_in(kind, rank);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    for (int j = 0; j < kInts; ++j) wrong += c[j] != 300 + kind + j;
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: %s: %d wrong values\n", rank, kNames[kind], wrong);
    return wrong;
}

// A sum of ints that notes whether it ever ran while another call of it was running. Each call
// stays a millisecond, watching for another, so that calls a library lets overlap do overlap.
std::atomic<int> g_running{0};
std::atomic<bool> g_overlapped{false};
void summing(void* in, void* inout, int* len, MPI_Datatype*) {
    if (g_running.fetch_add(1) != 0) g_overlapped = true;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1);
    while (!g_overlapped && std::chrono::steady_clock::now() < until)
        if (g_running.load() > 1) g_overlapped = true;
    const int* a = static_cast<const int*>(in);
    int* b = static_cast<int*>(inout);
    for (int i = 0; i < *len; ++i) b[i] += a[i];
    g_running.fetch_sub(1);
}

// The program's own reduction function in a blocking allreduce while a non-blocking one with it
// is pending (advanced meanwhile by this thread or the progress thread): MPI never runs it twice
// at once in a program below MPI_THREAD_MULTIPLE. How many wrong values, overlaps counted.
int user_function_round(int rank, int size) {
    constexpr int kCount = 1 << 18;
    std::vector<int> a(kCount, rank + 1), b(kCount, 2 * rank), sum_a(kCount, 0), sum_b(kCount, 0);
    MPI_Op op;
    MPI_Op_create(summing, 1, &op);
    MPI_Request request;
    MPI_Iallreduce(a.data(), sum_a.data(), kCount, MPI_INT, op, MPI_COMM_WORLD, &request);
    MPI_Allreduce(b.data(), sum_b.data(), kCount, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Op_free(&op);
    int wrong = 0;
    for (int i = 0; i < kCount; ++i) wrong += (sum_a[i] != size * (size + 1) / 2) + (sum_b[i] != size * (size - 1));
    if (g_overlapped) ++wrong;
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: user function: %d wrong values%s\n", rank, wrong,
                            g_overlapped ? ", run twice at once" : "");
    return wrong;
}

// A non-blocking broadcast seen complete by MPI_Request_get_status (which leaves the request
// allocated), then, with nothing pending, MPI_Waitany and MPI_Testany: the first must return it
// and free it, the second find no request active (SimGrid 3.32's own left it active). How many
// wrong values.
int completed_request_round(int rank) {
    int d[kInts];
    for (int j = 0; j < kInts; ++j) d[j] = rank == 0 ? 500 + j : -1;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Ibcast(d, kInts, MPI_INT, 0, MPI_COMM_WORLD, &requests[1]);
    for (int flag = 0; !flag;) MPI_Request_get_status(requests[1], &flag, MPI_STATUS_IGNORE);
    int index = -1, flag = 0, wrong = 0;
    MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
    wrong += (index != 1) + (requests[1] != MPI_REQUEST_NULL);
    MPI_Testany(2, requests, &index, &flag, MPI_STATUS_IGNORE);
    wrong += (flag == 0) + (index != MPI_UNDEFINED);
    for (int j = 0; j < kInts; ++j) wrong += d[j] != 500 + j;
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: completed request: %d wrong values\n", rank, wrong);
    return wrong;
}

// MPI_Recv and MPI_Sendrecv with MPI_PROC_NULL while a broadcast is pending (both made of their
// non-blocking forms then): each status must be MPI's for MPI_PROC_NULL (source MPI_PROC_NULL,
// tag MPI_ANY_TAG, no element), the buffer untouched. How many wrong values.
int proc_null_round(int rank) {
    int d[kInts];
    for (int j = 0; j < kInts; ++j) d[j] = rank == 0 ? 600 + j : -1;
    MPI_Request request;
    MPI_Ibcast(d, kInts, MPI_INT, 0, MPI_COMM_WORLD, &request);
    int got = 77, sent = 5, wrong = 0, count = -1;
    MPI_Status status;
    MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    wrong += (status.MPI_SOURCE != MPI_PROC_NULL) + (status.MPI_TAG != MPI_ANY_TAG) + (count != 0) + (got != 77);
    count = -1;
    MPI_Sendrecv(&sent, 1, MPI_INT, MPI_PROC_NULL, 9, &got, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    wrong += (status.MPI_SOURCE != MPI_PROC_NULL) + (status.MPI_TAG != MPI_ANY_TAG) + (count != 0) + (got != 77);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    for (int j = 0; j < kInts; ++j) wrong += d[j] != 600 + j;
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: MPI_PROC_NULL: %d wrong values\n", rank, wrong);
    return wrong;
}

// One MPI_Waitall over a pending broadcast, a persistent receive (MPI_Recv_init, MPI_Start) and a
// send of a ring exchange, and a null request: each status must be its own request's (the
// receive's source and tag; the null one's empty). Under SMPI the persistent request is not one
// the library keeps, so the wait tests each request. How many wrong values.
int mixed_waitall_round(int rank, int size) {
    int d[kInts];
    for (int j = 0; j < kInts; ++j) d[j] = rank == 0 ? 700 + j : -1;
    const int from = (rank + size - 1) % size;
    int got = -1, sent = rank, wrong = 0;
    MPI_Request reqs[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Recv_init(&got, 1, MPI_INT, from, 11, MPI_COMM_WORLD, &reqs[1]);
    const MPI_Request persistent = reqs[1];
    MPI_Ibcast(d, kInts, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Start(&reqs[1]);
    MPI_Isend(&sent, 1, MPI_INT, (rank + 1) % size, 11, MPI_COMM_WORLD, &reqs[2]);
    MPI_Status statuses[4];
    MPI_Waitall(4, reqs, statuses);
    wrong += (got != from) + (statuses[1].MPI_SOURCE != from) + (statuses[1].MPI_TAG != 11);
    wrong += (statuses[3].MPI_SOURCE != MPI_ANY_SOURCE) + (statuses[3].MPI_TAG != MPI_ANY_TAG);
    wrong += (reqs[0] != MPI_REQUEST_NULL) + (reqs[1] != persistent) + (reqs[2] != MPI_REQUEST_NULL);
    MPI_Request_free(&reqs[1]);
    for (int j = 0; j < kInts; ++j) wrong += d[j] != 700 + j;
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: mixed MPI_Waitall: %d wrong values\n", rank, wrong);
    return wrong;
}

// A null request waited for and tested while a broadcast is pending (SimGrid 3.32's MPI_Test
// sets no flag for one with MPI_STATUS_IGNORE: a wait made of tests spun for ever); then that
// broadcast, seen complete, in one MPI_Waitall beside a pending scatter whose method is the MPI
// library's own (`native`, the test scripts set it), and again both complete in MPI_Testall
// (SimGrid's MPI_Waitall left the complete broadcast's request active). How many wrong values.
int null_and_native_round(int rank, int size) {
    int d[kInts], flag = 0, wrong = 0;
    for (int j = 0; j < kInts; ++j) d[j] = rank == 0 ? 800 + j : -1;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Ibcast(d, kInts, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Test(&reqs[1], &flag, MPI_STATUS_IGNORE);
    wrong += flag == 0;
    std::vector<int> parts(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) parts[static_cast<std::size_t>(r)] = 900 + r;
    int part = -1;
    for (int round = 0; round < 2; ++round) {
        if (round == 1) MPI_Ibcast(d, kInts, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
        for (flag = 0; !flag;) MPI_Request_get_status(reqs[0], &flag, MPI_STATUS_IGNORE);
        MPI_Iscatter(parts.data(), 1, MPI_INT, &part, 1, MPI_INT, 1, MPI_COMM_WORLD, &reqs[1]);
        if (round == 0) MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        for (flag = 0; round == 1 && !flag;) MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
        wrong += (reqs[0] != MPI_REQUEST_NULL) + (reqs[1] != MPI_REQUEST_NULL) + (part != 900 + rank);
    }
    for (int j = 0; j < kInts; ++j) wrong += d[j] != 800 + j;
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: null and native requests: %d wrong values\n", rank, wrong);
    return wrong;
}

// The blocking collective B while broadcast A is pending.
int collective_round(int rank) {
    int a[kInts], b[kInts];
    for (int j = 0; j < kInts; ++j) {
        a[j] = rank == 0 ? 100 + j : -1;
        b[j] = rank == kLast ? 200 + j : -1;
    }
    MPI_Request request;
    MPI_Ibcast(a, kInts, MPI_INT, 0, MPI_COMM_WORLD, &request);
    if (rank == kLast) MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Bcast(b, kInts, MPI_INT, kLast, MPI_COMM_WORLD);
    if (rank != kLast) MPI_Wait(&request, MPI_STATUS_IGNORE);
    int wrong = 0;
    for (int j = 0; j < kInts; ++j) wrong += (a[j] != 100 + j) + (b[j] != 200 + j);
    if (wrong) std::fprintf(stderr, "pmpi_blocked: rank %d: MPI_Bcast: %d wrong elements\n", rank, wrong);
    return wrong;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4) {
        if (rank == 0) std::fprintf(stderr, "pmpi_blocked: needs 4 or more ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int wrong = collective_round(rank);
    for (int kind = 0; kind < kKinds; ++kind) {
#ifdef SMPI_H
        if (kind == kMprobe) continue;
#endif
        wrong += point_to_point_round(static_cast<Kind>(kind), rank, size);
    }
    wrong += completed_request_round(rank);
    wrong += proc_null_round(rank);
    wrong += mixed_waitall_round(rank, size);
    wrong += null_and_native_round(rank, size);
    wrong += user_function_round(rank, size);
    int all = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) std::printf("pmpi_blocked: passed on %d ranks\n", size);
    std::fflush(stdout);
    if (argc > 1 && std::strcmp(argv[1], "exit") == 0) std::exit(3);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
