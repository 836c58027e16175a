// pmpi_mpi4 MODE: MPI-4's ways into collectives that the PMPI library meets in programs written
// for MPICH 4 — a communicator made from a session's group (MPI_Session_init,
// MPI_Group_from_session_pset, MPI_Comm_create_from_group) and persistent collectives
// (MPI_Allreduce_init, MPI_Bcast_init, then MPI_Start and MPI_Wait, several times over). MODE
// `mixed` calls MPI_Init as well (the library is set up there and takes the session's
// communicator like any other); `sessions` never does (the library is not set up and every
// collective is the MPI library's own). Blocking, non-blocking and persistent calls interleave on
// the session's communicator and on its duplicate; every result is checked. Prints "pmpi_mpi4: N
// checks passed on P ranks (MODE)"; exit status 1 on a wrong result.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int failures = 0;
int checks = 0;

void expect(bool ok, const char* what, int rank) {
    ++checks;
    if (!ok) {
        ++failures;
        std::fprintf(stderr, "pmpi_mpi4: rank %d: wrong %s\n", rank, what);
    }
}

// Blocking and non-blocking collectives on `comm`, with a persistent allreduce started before
// and completed after them (MPI orders a persistent collective's start among the others).
// `summed`: the persistent allreduce's result, each rank having sent its rank plus `round`.
void exercise(MPI_Comm comm, MPI_Request& persistent, int round, const double* summed) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Start(&persistent);
    const int n = 1 << 15;
    std::vector<double> v(n), w(n);
    for (int i = 0; i < n; ++i) v[i] = rank + i;
    MPI_Allreduce(v.data(), w.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && w[i] == static_cast<double>(size) * i + size * (size - 1) / 2.0;
    expect(ok, "MPI_Allreduce", rank);
    const int root = size - 1;
    for (int i = 0; i < n; ++i) v[i] = rank == root ? 3.0 * i : -1.0;
    MPI_Bcast(v.data(), n, MPI_DOUBLE, root, comm);
    ok = true;
    for (int i = 0; i < n; ++i) ok = ok && v[i] == 3.0 * i;
    expect(ok, "MPI_Bcast", rank);
    std::vector<int> out(size), in(size, -1);
    for (int j = 0; j < size; ++j) out[j] = rank * 1000 + j;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Ialltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    ok = true;
    for (int j = 0; j < size; ++j) ok = ok && in[j] == j * 1000 + rank;
    expect(ok, "MPI_Ialltoall", rank);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    expect(*summed == size * (size - 1) / 2.0 + size * round, "persistent MPI_Allreduce", rank);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode != "mixed" && mode != "sessions") {
        std::fprintf(stderr, "usage: pmpi_mpi4 mixed|sessions\n");
        return 2;
    }
    if (mode == "mixed") MPI_Init(&argc, &argv);
    MPI_Session session = MPI_SESSION_NULL;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &session);
    MPI_Group group = MPI_GROUP_NULL;
    MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_create_from_group(group, "gridcoll.pmpi_mpi4", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &comm);
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);

    double sent = 0.0, summed = 0.0, token = 0.0;
    MPI_Request sum = MPI_REQUEST_NULL, spread = MPI_REQUEST_NULL;
    MPI_Allreduce_init(&sent, &summed, 1, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &sum);
    MPI_Bcast_init(&token, 1, MPI_DOUBLE, 0, dup, MPI_INFO_NULL, &spread);
    for (int round = 0; round < 3; ++round) {
        sent = rank + round;
        exercise(comm, sum, round, &summed);
        token = rank == 0 ? 7.0 + round : 0.0;
        MPI_Start(&spread);
        MPI_Wait(&spread, MPI_STATUS_IGNORE);
        expect(token == 7.0 + round, "persistent MPI_Bcast", rank);
        MPI_Barrier(dup);
    }
    MPI_Request_free(&sum);
    MPI_Request_free(&spread);
    if (mode == "mixed") {
        int one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        expect(all == size, "MPI_Allreduce on MPI_COMM_WORLD", rank);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Session_finalize(&session);
    if (failures == 0 && rank == 0)
        std::printf("pmpi_mpi4: %d checks passed on %d ranks (%s)\n", checks, size, mode.c_str());
    if (mode == "mixed") MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
