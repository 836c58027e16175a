#include "large_count.hpp"

namespace gridcoll::pmpi::large_count {

namespace {
thread_local const std::function<int(MPI_Request*)>* t_own = nullptr;
thread_local bool t_c_form = false;
}  // namespace

CForm::CForm() : outer_(t_c_form) { t_c_form = true; }
CForm::~CForm() { t_c_form = outer_; }
bool in_c_form() { return t_c_form; }

#ifdef GRIDCOLL_LARGE_COUNT
namespace {

bool fits(long long count) { return count >= 0 && count <= INT_MAX; }
// A count MPI ignores on this rank: any value that fits, else 0.
int narrow(long long count) { return fits(count) ? static_cast<int>(count) : 0; }

bool intra(MPI_Comm comm) {
    int inter = 1;
    return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

int bytes_count(long long count, MPI_Datatype type) {
    if (count == 0) return 0;
    if (type == MPI_DATATYPE_NULL || count < 0) return -1;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED) return -1;
    if (size == 0) return narrow(count);  // nothing moves: any count will do
    return count <= INT_MAX / size ? static_cast<int>(count) : -1;
}

}  // namespace

int int_count(MPI_Comm comm, long long count, MPI_Datatype type) { return intra(comm) ? bytes_count(count, type) : -1; }

std::optional<std::vector<int>> int_counts(MPI_Comm comm, const MPI_Count* counts, MPI_Datatype type) {
    int n = 0;
    if (!counts || !intra(comm)) return std::nullopt;
    PMPI_Comm_size(comm, &n);
    std::vector<int> out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        if ((out[static_cast<std::size_t>(i)] = bytes_count(counts[i], type)) < 0) return std::nullopt;
    return out;
}

namespace {

int root_rank(MPI_Comm comm) {
    int rank = -1;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

// The count `decides` (int_count), and `other` where significant: bytes_count, else any fitting.
CountPair pair(MPI_Comm comm, long long decides, MPI_Datatype decides_type, long long other, MPI_Datatype other_type,
               bool other_read) {
    const int a = int_count(comm, decides, decides_type);
    const int b = other_read ? bytes_count(other, other_type) : narrow(other);
    return a < 0 || b < 0 ? CountPair{} : CountPair{a, b, true};
}

CountPair swapped(CountPair c) { return {c.recv, c.send, c.ok}; }

}  // namespace

CountPair scatter_counts(MPI_Comm comm, int root, const void* recvbuf, long long sendcount, MPI_Datatype sendtype,
                         long long recvcount, MPI_Datatype recvtype) {
    if (!intra(comm)) return {};
    if (root_rank(comm) == root) return pair(comm, sendcount, sendtype, recvcount, recvtype, recvbuf != MPI_IN_PLACE);
    return swapped(pair(comm, recvcount, recvtype, sendcount, sendtype, false));
}

CountPair gather_counts(MPI_Comm comm, int root, const void* sendbuf, long long sendcount, MPI_Datatype sendtype,
                        long long recvcount, MPI_Datatype recvtype) {
    if (!intra(comm)) return {};
    if (root_rank(comm) == root) return swapped(pair(comm, recvcount, recvtype, sendcount, sendtype, sendbuf != MPI_IN_PLACE));
    return pair(comm, sendcount, sendtype, recvcount, recvtype, false);
}

CountPair every_rank_counts(MPI_Comm comm, const void* sendbuf, long long sendcount, MPI_Datatype sendtype,
                            long long recvcount, MPI_Datatype recvtype) {
    return swapped(pair(comm, recvcount, recvtype, sendcount, sendtype, sendbuf != MPI_IN_PLACE));
}

#endif

NativeCall::NativeCall(std::function<int(MPI_Request*)> own) : own_(std::move(own)), outer_(t_own) { t_own = &own_; }
NativeCall::~NativeCall() { t_own = outer_; }

const std::function<int(MPI_Request*)>* native_call() { return t_own; }

}  // namespace gridcoll::pmpi::large_count
