#include "gridcoll/runtime/native.hpp"

#include <climits>
#include <string>

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
    }
    if (rc != MPI_SUCCESS) throw Error("native " + std::string(to_string(r.coll)) + " failed");
}

}  // namespace gridcoll
