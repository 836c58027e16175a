#include "collectives.hpp"

#include <cstring>
#include <string>

#include "call_parts.hpp"
#include "comm_state.hpp"
#include "persistent.hpp"
#include "defined_pairs.hpp"
#include "layout.hpp"

namespace gridcoll::pmpi {

int barrier(MPI_Comm comm, MPI_Request* nb) {
    const auto fallback = [&] { return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Ibarrier(comm, r); }) : PMPI_Barrier(comm); };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    CallShape call{Collective::Barrier, cs->size()};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool done = guarded(comm, "MPI_Barrier", [&] { return execute(*cs, call, ch, 0, {}, nullptr, nb); });
    return done ? MPI_SUCCESS : fallback();
}

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* nb) {
    const auto fallback = [&] { return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Ibcast(buf, count, type, root, comm, r); }) : PMPI_Bcast(buf, count, type, root, comm); };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    const Layout l = layout_of(type, count);
    CallShape call{Collective::Bcast, cs->size(), l.bytes};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool done = guarded(comm, "MPI_Bcast", [&] {
        const Output out = output_of(*cs, buf, count, type, l.bytes);
        if (out.packed && cs->rank() == root) pack(buf, count, type, out.data, l.bytes, comm);
        if (!execute(*cs, call, ch, root, {nullptr, out.data, nullptr}, nullptr, nb)) return false;
        if (cs->rank() != root) finish_output(out, l.bytes, buf, count, type, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

namespace {

// reduce, allreduce and scan: one shape, one path. `root` < 0: every rank gets the result.
int reduction(Collective coll, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
              MPI_Comm comm, CommState* cs, const char* name, MPI_Request* nb) {
    const Layout l = layout_of(type, count);
    CallShape call{coll, cs->size(), l.bytes, l.elem, commutes(op), l.contiguous, mpi_defines(op, type)};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return -1;
    int rc = MPI_SUCCESS;
    const bool checked = kMpiChecksEveryAlias || (coll == Collective::Allreduce && count > 1);
    if (aliased(checked && (root < 0 || cs->rank() == root), sendbuf, recvbuf, comm, name, nb, &rc)) return rc;
    const bool done = guarded(comm, name, [&] {
        const bool gets_result = (root < 0 || cs->rank() == root) && !(coll == Collective::Exscan && cs->rank() == 0);
        const std::byte* in = reduction_input(*cs, sendbuf, recvbuf, l);
        std::byte* out = gets_result ? data_of(recvbuf, l) : nullptr;
        const ReduceFn f = reducer(*cs, type, op, l.elem, call.commutative);
        return execute(*cs, call, ch, root < 0 ? 0 : root, {const_cast<std::byte*>(in), out, nullptr}, &f, nb);
    });
    return done ? MPI_SUCCESS : -1;
}

}  // namespace

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request* nb) {
    CommState* cs = state_for(comm);
    const int rc = cs ? reduction(Collective::Reduce, sendbuf, recvbuf, count, type, op, root, comm, cs, "MPI_Reduce", nb) : -1;
    if (rc >= 0) return rc;
    return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, r); })
              : PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb) {
    CommState* cs = state_for(comm);
    const int rc = cs ? reduction(Collective::Allreduce, sendbuf, recvbuf, count, type, op, -1, comm, cs, "MPI_Allreduce", nb) : -1;
    if (rc >= 0) return rc;
    return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, r); })
              : PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb) {
    CommState* cs = state_for(comm);
    const int rc = cs ? reduction(Collective::Scan, sendbuf, recvbuf, count, type, op, -1, comm, cs, "MPI_Scan", nb) : -1;
    if (rc >= 0) return rc;
    return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, r); })
              : PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
}

int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* nb) {
    CommState* cs = state_for(comm);
    const int rc = cs ? reduction(Collective::Exscan, sendbuf, recvbuf, count, type, op, -1, comm, cs, "MPI_Exscan", nb) : -1;
    if (rc >= 0) return rc;
    return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, type, op, comm, r); })
              : PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb) {
    const auto fallback = [&] {
        return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r); })
                  : PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    const bool is_root = cs->rank() == root;
    const bool in_place = is_root && recvbuf == MPI_IN_PLACE;
    const std::uint64_t m = is_root ? layout_of(sendtype, sendcount).bytes : layout_of(recvtype, recvcount).bytes;
    CallShape call{Collective::Scatter, cs->size(), m};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool checked = kMpiChecksEveryAlias && is_root && sendtype == recvtype && sendcount == recvcount && sendcount;
    const void* own = checked ? block_at(sendbuf, root * sendcount, sendtype) : nullptr;
    if (int rc = 0; aliased(checked, recvbuf, own, comm, "MPI_Scatter", nb, &rc)) return rc;
    const std::uint64_t all = m * static_cast<std::uint64_t>(cs->size());
    const bool done = guarded(comm, "MPI_Scatter", [&] {
        const std::byte* in = is_root ? contiguous_input(*cs, kIn, sendbuf, sendcount * cs->size(), sendtype, all, comm) : nullptr;
        const Output out = in_place ? Output{cs->scratch(kOut, m), false} : output_of(*cs, recvbuf, recvcount, recvtype, m);
        if (!execute(*cs, call, ch, root, {const_cast<std::byte*>(in), out.data, nullptr}, nullptr, nb)) return false;
        if (!in_place) finish_output(out, m, recvbuf, recvcount, recvtype, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* nb) {
    const auto fallback = [&] {
        return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r); })
                  : PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    const bool is_root = cs->rank() == root;
    const bool in_place = is_root && sendbuf == MPI_IN_PLACE;
    const std::uint64_t m = is_root ? layout_of(recvtype, recvcount).bytes : layout_of(sendtype, sendcount).bytes;
    CallShape call{Collective::Gather, cs->size(), m};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool checked = kMpiChecksEveryAlias && is_root && sendtype == recvtype && sendcount == recvcount && sendcount;
    const void* own = checked ? block_at(recvbuf, root * recvcount, recvtype) : nullptr;
    if (int rc = 0; aliased(checked, sendbuf, own, comm, "MPI_Gather", nb, &rc)) return rc;
    const std::uint64_t all = m * static_cast<std::uint64_t>(cs->size());
    const bool done = guarded(comm, "MPI_Gather", [&] {
        const std::byte* in = nullptr;
        if (in_place) {
            const auto* block = static_cast<const std::byte*>(recvbuf) + extent_of(recvtype) * recvcount * root;
            in = contiguous_input(*cs, kIn, block, recvcount, recvtype, m, comm);
            std::byte* copy = cs->scratch(kInCopy, m);  // the output overwrites the block in place
            std::memcpy(copy, in, m);
            in = copy;
        } else {
            in = contiguous_input(*cs, kIn, sendbuf, sendcount, sendtype, m, comm);
        }
        const Output out = is_root ? output_of(*cs, recvbuf, recvcount * cs->size(), recvtype, all) : Output{};
        if (!execute(*cs, call, ch, root, {const_cast<std::byte*>(in), out.data, nullptr}, nullptr, nb)) return false;
        if (is_root) finish_output(out, all, recvbuf, recvcount * cs->size(), recvtype, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb) {
    const auto fallback = [&] {
        return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r); })
                  : PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    const std::uint64_t m = layout_of(recvtype, recvcount).bytes;
    CallShape call{Collective::Allgather, cs->size(), m};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool checked = kMpiChecksEveryAlias && sendtype == recvtype && sendcount == recvcount && sendcount;
    const void* own = checked ? block_at(recvbuf, cs->rank() * recvcount, recvtype) : nullptr;
    if (int rc = 0; aliased(checked, sendbuf, own, comm, "MPI_Allgather", nb, &rc)) return rc;
    const std::uint64_t all = m * static_cast<std::uint64_t>(cs->size());
    const bool done = guarded(comm, "MPI_Allgather", [&] {
        const std::byte* in = nullptr;
        if (sendbuf == MPI_IN_PLACE) {
            const auto* block = static_cast<const std::byte*>(recvbuf) + extent_of(recvtype) * recvcount * cs->rank();
            in = contiguous_input(*cs, kIn, block, recvcount, recvtype, m, comm);
            std::byte* copy = cs->scratch(kInCopy, m);
            std::memcpy(copy, in, m);
            in = copy;
        } else {
            in = contiguous_input(*cs, kIn, sendbuf, sendcount, sendtype, m, comm);
        }
        const Output out = output_of(*cs, recvbuf, recvcount * cs->size(), recvtype, all);
        if (!execute(*cs, call, ch, 0, {const_cast<std::byte*>(in), out.data, nullptr}, nullptr, nb)) return false;
        finish_output(out, all, recvbuf, recvcount * cs->size(), recvtype, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* nb) {
    const auto fallback = [&] {
        return nb ? persistent::native_nonblocking(nb, [&](MPI_Request* r) { return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r); })
                  : PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    };
    CommState* cs = state_for(comm);
    if (!cs) return fallback();
    const std::uint64_t m = layout_of(recvtype, recvcount).bytes;
    CallShape call{Collective::Alltoall, cs->size(), m};
    const Choice& ch = cs->choice(call);
    if (ch.native()) return fallback();
    const bool checked = kMpiChecksEveryAlias && sendtype == recvtype && sendcount == recvcount && sendcount;
    if (int rc = 0; aliased(checked, sendbuf, recvbuf, comm, "MPI_Alltoall", nb, &rc)) return rc;
    const int n = cs->size();
    const std::uint64_t all = m * static_cast<std::uint64_t>(n);
    const bool done = guarded(comm, "MPI_Alltoall", [&] {
        const std::byte* in = nullptr;
        if (sendbuf == MPI_IN_PLACE) {
            in = contiguous_input(*cs, kIn, recvbuf, recvcount * n, recvtype, all, comm);
            std::byte* copy = cs->scratch(kInCopy, all);
            std::memcpy(copy, in, all);
            in = copy;
        } else {
            in = contiguous_input(*cs, kIn, sendbuf, sendcount * n, sendtype, all, comm);
            if (in == recvbuf) {  // aliased (aliased() above): the output would overwrite the input
                std::byte* copy = cs->scratch(kInCopy, all);
                std::memcpy(copy, in, all);
                in = copy;
            }
        }
        const Output out = output_of(*cs, recvbuf, recvcount * n, recvtype, all);
        if (!execute(*cs, call, ch, 0, {const_cast<std::byte*>(in), out.data, nullptr}, nullptr, nb)) return false;
        finish_output(out, all, recvbuf, recvcount * n, recvtype, comm);
        return true;
    });
    return done ? MPI_SUCCESS : fallback();
}

}  // namespace gridcoll::pmpi
