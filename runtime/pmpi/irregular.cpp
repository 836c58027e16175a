// The intercepted collectives whose blocks differ per rank (the v-variants, reduce_scatter) and
// reduce_scatter_block: as collectives.cpp, with the counts turned into gridcoll's Counts.
// Where not every rank knows every count (gatherv, scatterv: only the root; alltoallv: each
// rank its own row and column) the method is chosen as for one byte a block, the same answer
// everywhere, and a method that reads the others' counts (registry.hpp: needs_all_counts) gets
// them first: the root's broadcast, or every rank's row gathered.
#include <cstring>
#include <vector>

#include "collectives.hpp"
#include "defined_pairs.hpp"
#include "irregular_parts.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

namespace gridcoll::pmpi {

namespace {

std::shared_ptr<const Counts> blocks_of(const std::vector<std::uint64_t>& b) { return std::make_shared<const Counts>(b); }

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    std::uint64_t s = 0;
    for (std::uint64_t x : v) s += x;
    return s;
}

// reduce_scatter and reduce_scatter_block: `blocks` bytes of the result per rank.
int reduce_scatter_call(Collective coll, const void* sendbuf, void* recvbuf, const std::vector<std::uint64_t>& blocks,
                        MPI_Datatype type, MPI_Op op, MPI_Comm comm, CommState* cs, const char* name, MPI_Request* nb) {
    const Layout one = layout_of(type, 1);
    const std::uint64_t total = sum(blocks);
    const std::uint64_t m = coll == Collective::ReduceScatterBlock ? blocks[0] : nominal_bytes(total, cs->size(), one.elem);
    CallShape call{coll, cs->size(), m, one.elem, commutes(op), one.contiguous, mpi_defines(op, type)};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return -1;
    if (int rc = 0; aliased(kMpiChecksEveryAlias, sendbuf, recvbuf, comm, name, nb, &rc)) return rc;
    const bool done = guarded(comm, name, [&] {
        const Layout whole = layout_of(type, static_cast<int>(total / one.elem));
        const std::byte* in = reduction_input(*cs, sendbuf, recvbuf, whole);
        std::byte* out = data_of(recvbuf, one);
        const ReduceFn f = reducer(*cs, type, op, one.elem, call.commutative);
        const Buffers b{const_cast<std::byte*>(in), out, nullptr};
        if (coll == Collective::ReduceScatterBlock) return execute(*cs, call, ch, 0, b, &f, nb);
        execute_irregular(*cs, call, ch, 0, blocks_of(blocks), b, &f, nb);
        return true;
    });
    return done ? MPI_SUCCESS : -1;
}

// MPI's own form of the call, blocking or started on `nb` (a persistent start: MPI's own
// persistent request, persistent.hpp).
int own_call(const OwnCall& own, MPI_Request* nb) { return nb ? persistent::native_nonblocking(nb, own) : own(nullptr); }

// The root's counts, at every rank (gatherv and scatterv methods that need them).
std::vector<std::uint64_t> root_counts(CommState& cs, std::vector<std::uint64_t> mine, int root) {
    MPI_Request r = MPI_REQUEST_NULL;
    PMPI_Ibcast(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, root, cs.traffic(), &r);
    wait_advancing(&r);  // pending operations move on meanwhile (MPI's progress rule)
    return mine;
}

}  // namespace

int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb) {
    CommState* cs = state_for(comm);
    int rc = -1;
    if (cs) {
        const std::vector<std::uint64_t> blocks(static_cast<std::size_t>(cs->size()), layout_of(type, recvcount).bytes);
        rc = reduce_scatter_call(Collective::ReduceScatterBlock, sendbuf, recvbuf, blocks, type, op, comm, cs,
                                 "MPI_Reduce_scatter_block", nb);
    }
    if (rc >= 0) return rc;
    return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, r); })
              : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb) {
    CommState* cs = state_for(comm);
    int rc = -1;
    if (cs) {
        const VBuffer v{recvbuf, recvcounts, nullptr, type, cs->size()};
        rc = reduce_scatter_call(Collective::ReduceScatter, sendbuf, recvbuf, v.all_bytes(), type, op, comm, cs,
                                 "MPI_Reduce_scatter", nb);
    }
    if (rc >= 0) return rc;
    return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, r); })
              : PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

int allgatherv(const void* sendbuf, long long sendcount, MPI_Datatype sendtype, void* recvbuf, Ints recvcounts,
               Ints displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own) {
    const auto fallback = [&] { return own_call(mpi_own, nb); };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    const VBuffer out{recvbuf, recvcounts, displs, recvtype, cs->size()};
    const std::vector<std::uint64_t> blocks = out.all_bytes();
    CallShape call{Collective::Allgatherv, cs->size(), nominal_bytes(sum(blocks), cs->size(), 1)};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const int r = cs->rank();
    const bool checked = kMpiChecksEveryAlias && sendtype == recvtype && sendcount && recvcounts[r];
    const void* own = checked ? block_at(recvbuf, displs[r], recvtype) : nullptr;
    if (int rc = 0; aliased(checked, sendbuf, own, comm, "MPI_Allgatherv", nb, &rc)) return rc;
    const int me = cs->rank();
    const bool done = guarded(comm, "MPI_Allgatherv", [&] {
        const std::uint64_t mine = blocks[static_cast<std::size_t>(me)];
        const std::byte* in = nullptr;
        if (sendbuf == MPI_IN_PLACE) {
            const VBuffer own{recvbuf, recvcounts.from(me), displs.from(me), recvtype, 1};
            std::byte* copy = cs->scratch(kInCopy, mine);
            if (mine > 0) std::memcpy(copy, blocks_in(*cs, kIn, own, comm), mine);
            in = copy;
        } else {
            in = contiguous_input(*cs, kIn, sendbuf, sendcount, sendtype, mine, comm);
        }
        std::byte* packed = blocks_out(*cs, kOut, out);
        execute_irregular(*cs, call, ch, 0, blocks_of(blocks), {const_cast<std::byte*>(in), packed, nullptr}, nullptr, nb);
        blocks_out_finish(packed, out, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

int gatherv(const void* sendbuf, long long sendcount, MPI_Datatype sendtype, void* recvbuf, Ints recvcounts,
            Ints displs, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own) {
    const auto fallback = [&] { return own_call(mpi_own, nb); };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    CallShape call{Collective::Gatherv, cs->size(), 1};  // not every rank knows the sizes
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool checked = kMpiChecksEveryAlias && cs->rank() == root && sendtype == recvtype && sendcount && recvcounts[root];
    const void* own = checked ? block_at(recvbuf, displs[root], recvtype) : nullptr;
    if (int rc = 0; aliased(checked, sendbuf, own, comm, "MPI_Gatherv", nb, &rc)) return rc;
    const int me = cs->rank(), P = cs->size();
    const bool is_root = me == root, in_place = is_root && sendbuf == MPI_IN_PLACE;
    const bool done = guarded(comm, "MPI_Gatherv", [&] {
        const VBuffer out{recvbuf, recvcounts, displs, recvtype, P};
        std::vector<std::uint64_t> blocks(static_cast<std::size_t>(P), 0);
        if (is_root) blocks = out.all_bytes();
        else blocks[static_cast<std::size_t>(me)] = layout_of(sendtype, sendcount).bytes;
        if (needs_all_counts(call, ch)) blocks = root_counts(*cs, blocks, root);
        const std::uint64_t mine = blocks[static_cast<std::size_t>(me)];
        const std::byte* in = nullptr;
        if (in_place) {
            const VBuffer own{recvbuf, recvcounts.from(me), displs.from(me), recvtype, 1};
            std::byte* copy = cs->scratch(kInCopy, mine);
            if (mine > 0) std::memcpy(copy, blocks_in(*cs, kIn, own, comm), mine);
            in = copy;
        } else {
            in = contiguous_input(*cs, kIn, sendbuf, sendcount, sendtype, mine, comm);
        }
        std::byte* packed = is_root ? blocks_out(*cs, kOut, out) : nullptr;
        execute_irregular(*cs, call, ch, root, blocks_of(blocks), {const_cast<std::byte*>(in), packed, nullptr}, nullptr, nb);
        if (is_root) blocks_out_finish(packed, out, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

int scatterv(const void* sendbuf, Ints sendcounts, Ints displs, MPI_Datatype sendtype, void* recvbuf,
             long long recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own) {
    const auto fallback = [&] { return own_call(mpi_own, nb); };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    CallShape call{Collective::Scatterv, cs->size(), 1};  // not every rank knows the sizes
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool checked = kMpiChecksEveryAlias && cs->rank() == root && sendtype == recvtype && recvcount && sendcounts[root];
    const void* own = checked ? block_at(sendbuf, displs[root], sendtype) : nullptr;
    if (int rc = 0; aliased(checked, recvbuf, own, comm, "MPI_Scatterv", nb, &rc)) return rc;
    const int me = cs->rank(), P = cs->size();
    const bool is_root = me == root, in_place = is_root && recvbuf == MPI_IN_PLACE;
    const bool done = guarded(comm, "MPI_Scatterv", [&] {
        const VBuffer from{sendbuf, sendcounts, displs, sendtype, P};
        std::vector<std::uint64_t> blocks(static_cast<std::size_t>(P), 0);
        if (is_root) blocks = from.all_bytes();
        else blocks[static_cast<std::size_t>(me)] = layout_of(recvtype, recvcount).bytes;
        if (needs_all_counts(call, ch)) blocks = root_counts(*cs, blocks, root);
        const std::uint64_t mine = blocks[static_cast<std::size_t>(me)];
        const std::byte* in = is_root ? blocks_in(*cs, kIn, from, comm) : nullptr;
        const Output out = in_place ? Output{cs->scratch(kOut, mine), false} : output_of(*cs, recvbuf, recvcount, recvtype, mine);
        execute_irregular(*cs, call, ch, root, blocks_of(blocks), {const_cast<std::byte*>(in), out.data, nullptr}, nullptr, nb);
        if (!in_place) finish_output(out, mine, recvbuf, recvcount, recvtype, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

namespace {

// alltoallv and alltoallw (`label` "alltoallw", the log's name; it runs with alltoallv's methods):
// this rank's blocks to each rank in `from` (its receive blocks, with MPI_IN_PLACE) and from each
// rank in `out`; `checked` as aliased() says.
int all_to_all_blocks(const char* name, const char* label, const void* sendbuf, VBuffer from, VBuffer out, bool checked,
                      MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own) {
    const auto fallback = [&] { return own_call(mpi_own, nb); };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    CallShape call{Collective::Alltoallv, cs->size(), 1};  // each rank knows only its own sizes
    call.label = label;
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    if (int rc = 0; aliased(checked, sendbuf, out.buf, comm, name, nb, &rc)) return rc;
    const int me = cs->rank(), P = cs->size();
    const bool in_place = sendbuf == MPI_IN_PLACE;
    out.n = from.n = P;
    if (in_place) from = out;
    const bool done = guarded(comm, name, [&] {
        const std::size_t n = static_cast<std::size_t>(P);
        std::vector<std::uint64_t> matrix(n * n, 0);
        for (int j = 0; j < P; ++j) {
            matrix[static_cast<std::size_t>(me) * n + static_cast<std::size_t>(j)] = from.bytes(j);
            matrix[static_cast<std::size_t>(j) * n + static_cast<std::size_t>(me)] = out.bytes(j);
        }
        if (needs_all_counts(call, ch)) {
            std::vector<std::uint64_t> row(matrix.begin() + static_cast<long>(me * static_cast<int>(n)),
                                           matrix.begin() + static_cast<long>((me + 1) * static_cast<int>(n)));
            MPI_Request r = MPI_REQUEST_NULL;
            PMPI_Iallgather(row.data(), P, MPI_UINT64_T, matrix.data(), P, MPI_UINT64_T, cs->traffic(), &r);
            wait_advancing(&r);
        }
        const std::byte* in = blocks_in(*cs, kIn, from, comm);
        if (in_place || sendbuf == out.buf) {  // the output overwrites the input (or its alias): a copy
            const std::uint64_t all = sum(from.all_bytes());
            std::byte* copy = cs->scratch(kInCopy, all);
            if (all > 0) std::memcpy(copy, in, all);
            in = copy;
        }
        std::byte* packed = blocks_out(*cs, kOut, out);
        execute_irregular(*cs, call, ch, 0, std::make_shared<const Counts>(P, std::move(matrix)),
                          {const_cast<std::byte*>(in), packed, nullptr}, nullptr, nb);
        blocks_out_finish(packed, out, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

}  // namespace

int alltoallv(const void* sendbuf, Ints sendcounts, Ints sdispls, MPI_Datatype sendtype, void* recvbuf,
              Ints recvcounts, Ints rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb, const OwnCall& mpi_own) {
    const bool checked = kMpiChecksEveryAlias && sendtype == recvtype && sendcounts == recvcounts;
    return all_to_all_blocks("MPI_Alltoallv", "", sendbuf, VBuffer{sendbuf, sendcounts, sdispls, sendtype},
                             VBuffer{recvbuf, recvcounts, rdispls, recvtype}, checked, comm, nb, mpi_own);
}

int alltoallw(const void* sendbuf, Ints sendcounts, Ints sdispls, const MPI_Datatype sendtypes[], void* recvbuf,
              Ints recvcounts, Ints rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* nb,
              const OwnCall& mpi_own) {
    const bool checked = kMpiChecksEveryAlias && sendtypes == recvtypes && sendcounts == recvcounts;
    return all_to_all_blocks("MPI_Alltoallw", "alltoallw", sendbuf, VBuffer{sendbuf, sendcounts, sdispls, MPI_BYTE, 0, sendtypes},
                             VBuffer{recvbuf, recvcounts, rdispls, MPI_BYTE, 0, recvtypes}, checked, comm, nb, mpi_own);
}

std::vector<MPI_Datatype> alltoallw_types(const void* sendbuf, const MPI_Datatype sendtypes[],
                                          const MPI_Datatype recvtypes[], MPI_Comm comm) {
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return {};  // MPI's own call reports it
    if (inter) PMPI_Comm_remote_size(comm, &n);
    else PMPI_Comm_size(comm, &n);
    std::vector<MPI_Datatype> types;
    if (recvtypes) types.assign(recvtypes, recvtypes + n);
    if (sendbuf != MPI_IN_PLACE && sendtypes) types.insert(types.end(), sendtypes, sendtypes + n);
    return types;
}

// The int forms: MPI's own calls are the int ones.

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
               const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb) {
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nb, [&](MPI_Request* r) {
        return r ? PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r)
                 : PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    });
}

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
            const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb) {
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, nb, [&](MPI_Request* r) {
        return r ? PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r)
                 : PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    });
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb) {
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, nb, [&](MPI_Request* r) {
        return r ? PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r)
                 : PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    });
}

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb) {
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, nb,
                     [&](MPI_Request* r) {
                         return r ? PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r)
                                  : PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
                     });
}

int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
              void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request* nb) {
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, nb,
                     [&](MPI_Request* r) {
                         return r ? PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, r)
                                  : PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
                     });
}

}  // namespace gridcoll::pmpi
