#include "large_count.hpp"

namespace gridcoll::pmpi::large_count {

namespace {
thread_local const std::function<int(MPI_Request*)>* t_own = nullptr;
}  // namespace

#ifdef GRIDCOLL_LARGE_COUNT
int int_count(long long count, MPI_Datatype type) {
    if (type == MPI_DATATYPE_NULL || count < 0) return -1;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED) return -1;
    if (size == 0) return narrow(count);  // nothing moves: any count will do
    return count <= INT_MAX / size ? static_cast<int>(count) : -1;
}

std::optional<std::vector<int>> int_counts(const MPI_Count* counts, MPI_Datatype type, MPI_Comm comm) {
    int inter = 1, n = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return std::nullopt;
    PMPI_Comm_size(comm, &n);
    std::vector<int> out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        if ((out[static_cast<std::size_t>(i)] = int_count(counts[i], type)) < 0) return std::nullopt;
    return out;
}

bool is_root(MPI_Comm comm, int root) {
    int inter = 0, rank = -1;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) return root == MPI_ROOT;
    PMPI_Comm_rank(comm, &rank);
    return rank == root;
}

#endif

NativeCall::NativeCall(std::function<int(MPI_Request*)> own) : own_(std::move(own)), outer_(t_own) { t_own = &own_; }
NativeCall::~NativeCall() { t_own = outer_; }

const std::function<int(MPI_Request*)>* native_call() { return t_own; }

}  // namespace gridcoll::pmpi::large_count
