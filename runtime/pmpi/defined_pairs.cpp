#include "defined_pairs.hpp"

#include <cstddef>
#include <mutex>
#include <vector>

#include "layout.hpp"

namespace gridcoll::pmpi {

namespace {

struct DefinedPairs {
    struct Pair {
        MPI_Op op;
        MPI_Datatype type;
        bool defined;
    };
    std::mutex lock;
    std::vector<Pair> known;
    MPI_Comm self = MPI_COMM_NULL;
};
DefinedPairs& defined_pairs() {
    static DefinedPairs d;
    return d;
}

bool predefined(MPI_Op op) {
    for (MPI_Op p : {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR,
                     MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP})
        if (op == p) return true;
    return false;
}

// MPI's answer for a predefined type: one element reduced on one rank.
bool ask_mpi(DefinedPairs& d, MPI_Op op, MPI_Datatype type) {
    alignas(64) std::byte in[128] = {}, out[128] = {};
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    if (extent > static_cast<MPI_Aint>(sizeof in) || d.self == MPI_COMM_NULL) return true;
    return PMPI_Allreduce(in, out, 1, type, op, d.self) == MPI_SUCCESS;
}

}  // namespace

bool mpi_defines(MPI_Op op, MPI_Datatype type) {
    if (!predefined(op) || type == MPI_DATATYPE_NULL) return true;  // (null: no elements, MPI's own)
    const MPI_Datatype base = predefined_base(type);
    if (base == MPI_DATATYPE_NULL) return true;  // not reduced by gridcoll (layout.hpp)
    DefinedPairs& d = defined_pairs();
    std::lock_guard<std::mutex> hold(d.lock);
    for (const DefinedPairs::Pair& p : d.known)
        if (p.op == op && p.type == base) return p.defined;
    const bool defined = ask_mpi(d, op, base);
    d.known.push_back({op, base, defined});
    return defined;
}

void open_defined_pairs() {
    DefinedPairs& d = defined_pairs();
    std::lock_guard<std::mutex> hold(d.lock);
    if (d.self != MPI_COMM_NULL || PMPI_Comm_dup(MPI_COMM_SELF, &d.self) != MPI_SUCCESS) return;
    PMPI_Comm_set_errhandler(d.self, MPI_ERRORS_RETURN);
}

void forget_defined_pairs() {
    DefinedPairs& d = defined_pairs();
    std::lock_guard<std::mutex> hold(d.lock);
    d.known.clear();
    if (d.self != MPI_COMM_NULL) PMPI_Comm_free(&d.self);
}

}  // namespace gridcoll::pmpi
