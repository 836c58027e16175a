#include "gridcoll/runtime/native.hpp"

#include <climits>
#include <functional>
#include <string>
#include <vector>

namespace gridcoll {

namespace {

MPI_Datatype mpi_type(ElemType t) {
    switch (t) {
        case ElemType::Int32: return MPI_INT32_T;
        case ElemType::Int64: return MPI_INT64_T;
        case ElemType::Float: return MPI_FLOAT;
        case ElemType::Double: return MPI_DOUBLE;
    }
    return MPI_BYTE;
}

MPI_Op mpi_op(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum: return MPI_SUM;
        case ReduceOp::Prod: return MPI_PROD;
        case ReduceOp::Min: return MPI_MIN;
        case ReduceOp::Max: return MPI_MAX;
    }
    return MPI_SUM;
}

int count_of(std::uint64_t n) {
    if (n > static_cast<std::uint64_t>(INT_MAX)) throw Error("native collective: count " + std::to_string(n) + " exceeds INT_MAX");
    return static_cast<int>(n);
}

// Counts and displacements, in units of `unit` bytes, of a packed buffer of `n` blocks.
struct Layout {
    std::vector<int> counts, displs;
};
Layout layout(int n, std::uint64_t unit, const std::function<std::uint64_t(int)>& bytes,
              const std::function<std::uint64_t(int)>& offset) {
    Layout l;
    for (int j = 0; j < n; ++j) {
        l.counts.push_back(count_of(bytes(j) / unit));
        l.displs.push_back(count_of(offset(j) / unit));
    }
    return l;
}

// The irregular collectives and the two that MPI added with them.
int run_native_more(const Request& r, const Buffers& b, MPI_Datatype t, MPI_Op o, std::uint64_t es, MPI_Comm comm) {
    const int P = r.size, me = r.rank;
    if (r.coll == Collective::ReduceScatterBlock)
        return MPI_Reduce_scatter_block(b.in, b.out, count_of(r.bytes / es), t, o, comm);
    if (r.coll == Collective::Exscan) {
        std::vector<std::byte> ignored(me == 0 ? r.bytes : 0);  // rank 0's result is undefined
        return MPI_Exscan(b.in, me == 0 ? ignored.data() : b.out, count_of(r.bytes / es), t, o, comm);
    }
    const Counts& c = *r.counts;
    const auto block = [&](int j) { return c.block(j); };
    const auto offset = [&](int j) { return c.offset(j); };
    switch (r.coll) {
        case Collective::ReduceScatter: {
            const Layout l = layout(P, es, block, offset);
            return MPI_Reduce_scatter(b.in, b.out, l.counts.data(), t, o, comm);
        }
        case Collective::Allgatherv: {
            const Layout l = layout(P, 1, block, offset);
            return MPI_Allgatherv(b.in, l.counts[me], MPI_BYTE, b.out, l.counts.data(), l.displs.data(), MPI_BYTE, comm);
        }
        case Collective::Gatherv: {
            const Layout l = layout(P, 1, block, offset);
            return MPI_Gatherv(b.in, l.counts[me], MPI_BYTE, b.out, l.counts.data(), l.displs.data(), MPI_BYTE, r.root, comm);
        }
        case Collective::Scatterv: {
            const Layout l = layout(P, 1, block, offset);
            return MPI_Scatterv(b.in, l.counts.data(), l.displs.data(), MPI_BYTE, b.out, l.counts[me], MPI_BYTE, r.root, comm);
        }
        case Collective::Alltoallv: {
            const Layout snd = layout(P, 1, [&](int j) { return c.pair(me, j); }, [&](int j) { return c.send_offset(me, j); });
            const Layout rcv = layout(P, 1, [&](int i) { return c.pair(i, me); }, [&](int i) { return c.recv_offset(me, i); });
            return MPI_Alltoallv(b.in, snd.counts.data(), snd.displs.data(), MPI_BYTE, b.out, rcv.counts.data(),
                                 rcv.displs.data(), MPI_BYTE, comm);
        }
        default: break;
    }
    throw Error("native " + std::string(to_string(r.coll)) + ": not an MPI collective");
}

}  // namespace

void run_native(const Request& r, const Buffers& b, ElemType type, ReduceOp op, MPI_Comm comm) {
    const int m = count_of(r.bytes);
    const int elems = count_of(r.bytes / elem_size(type));
    const MPI_Datatype t = mpi_type(type);
    const MPI_Op o = mpi_op(op);
    int rc = MPI_SUCCESS;
    switch (r.coll) {
        case Collective::Barrier: rc = MPI_Barrier(comm); break;
        case Collective::Bcast: rc = MPI_Bcast(b.out, m, MPI_BYTE, r.root, comm); break;
        case Collective::Reduce: rc = MPI_Reduce(b.in, b.out, elems, t, o, r.root, comm); break;
        case Collective::Allreduce: rc = MPI_Allreduce(b.in, b.out, elems, t, o, comm); break;
        case Collective::Scan: rc = MPI_Scan(b.in, b.out, elems, t, o, comm); break;
        case Collective::Scatter: rc = MPI_Scatter(b.in, m, MPI_BYTE, b.out, m, MPI_BYTE, r.root, comm); break;
        case Collective::Gather: rc = MPI_Gather(b.in, m, MPI_BYTE, b.out, m, MPI_BYTE, r.root, comm); break;
        case Collective::Allgather: rc = MPI_Allgather(b.in, m, MPI_BYTE, b.out, m, MPI_BYTE, comm); break;
        case Collective::Alltoall: rc = MPI_Alltoall(b.in, m, MPI_BYTE, b.out, m, MPI_BYTE, comm); break;
        default: rc = run_native_more(r, b, t, o, elem_size(type), comm); break;
    }
    if (rc != MPI_SUCCESS) throw Error("native " + std::string(to_string(r.coll)) + " failed");
}

}  // namespace gridcoll
