#include "layout.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::pmpi {

namespace {

bool named(MPI_Datatype t) {
    int ints = 0, addrs = 0, types = 0, combiner = 0;
    PMPI_Type_get_envelope(t, &ints, &addrs, &types, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

}  // namespace

// A contiguous type's one base type, when predefined (e.g. two doubles as a complex number).
MPI_Datatype predefined_base(MPI_Datatype t) {
    int ints = 0, addrs = 0, types = 0, combiner = 0;
    PMPI_Type_get_envelope(t, &ints, &addrs, &types, &combiner);
    if (combiner == MPI_COMBINER_NAMED) return t;
    if (combiner != MPI_COMBINER_CONTIGUOUS || ints != 1 || addrs != 0 || types != 1) return MPI_DATATYPE_NULL;
    int count = 0;
    MPI_Aint unused = 0;
    MPI_Datatype base = MPI_DATATYPE_NULL;
    PMPI_Type_get_contents(t, 1, 0, 1, &count, &unused, &base);
    if (named(base)) return base;
    PMPI_Type_free(&base);  // derived base types come back as new handles
    return MPI_DATATYPE_NULL;
}

namespace {

// Predefined types whose layout is known without asking MPI (the per-call fast path).
struct Known {
    MPI_Datatype type;
    std::uint64_t size;
};
const std::vector<Known>& known_types() {
    static const std::vector<Known> known = [] {
        std::vector<Known> k;
        for (MPI_Datatype t : {MPI_INT, MPI_DOUBLE, MPI_BYTE, MPI_CHAR, MPI_FLOAT, MPI_LONG, MPI_LONG_LONG, MPI_UNSIGNED,
                               MPI_UNSIGNED_LONG, MPI_SHORT, MPI_INT32_T, MPI_INT64_T, MPI_UINT32_T, MPI_UINT64_T,
                               MPI_UINT8_T, MPI_INT8_T, MPI_UNSIGNED_CHAR}) {
            int size = 0;
            PMPI_Type_size(t, &size);
            k.push_back({t, static_cast<std::uint64_t>(size)});
        }
        return k;
    }();
    return known;
}

}  // namespace

Layout layout_of(MPI_Datatype type, long long count) {
    Layout l;
    const std::uint64_t n = static_cast<std::uint64_t>(count < 0 ? 0 : count);
    if (type == MPI_DATATYPE_NULL && n == 0) {  // no elements of no type: an empty message, MPI's own
        l.contiguous = true;
        return l;
    }
    for (const Known& k : known_types())
        if (k.type == type) {
            l.elem = k.size;
            l.bytes = k.size * n;
            l.contiguous = true;
            return l;
        }
    int size = 0;
    PMPI_Type_size(type, &size);
    MPI_Aint lb = 0, extent = 0, true_extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &l.true_lb, &true_extent);
    l.elem = static_cast<std::uint64_t>(size);
    l.bytes = l.elem * n;
    l.contiguous = size > 0 && extent == size && true_extent == size && lb == l.true_lb &&
                   predefined_base(type) != MPI_DATATYPE_NULL;
    return l;
}

namespace {

// MPI_Pack and MPI_Unpack count positions in ints (and Open MPI 4.1 refuses a run whose extent
// passes INT_MAX): larger ones go in runs of whole elements, each at its own place in the packed
// bytes. `f(offset, shift of the first element, elements, run bytes)` packs or unpacks one run.
template <class Run>
void in_runs(long long count, MPI_Datatype type, std::uint64_t bytes, Run&& f) {
    if (bytes == 0) return;  // nothing to move (a zero-byte buffer may be null, which MPI_Pack refuses)
    const std::uint64_t elem = count > 0 ? bytes / static_cast<std::uint64_t>(count) : 0;
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    const std::uint64_t widest = std::max(elem, static_cast<std::uint64_t>(extent > 0 ? extent : 0));
    if (elem == 0 || widest * static_cast<std::uint64_t>(count) <= static_cast<std::uint64_t>(INT_MAX))
        return f(0, 0, static_cast<int>(count), bytes);
    if (widest > static_cast<std::uint64_t>(INT_MAX))
        throw Error("one element of " + std::to_string(widest) + " bytes: MPI_Pack cannot take it");
    const long long per_run = static_cast<long long>(static_cast<std::uint64_t>(INT_MAX) / widest);
    for (long long first = 0; first < count; first += per_run) {
        const int n = static_cast<int>(std::min(per_run, count - first));
        f(static_cast<std::uint64_t>(first) * elem, static_cast<MPI_Aint>(first) * extent, n,
          static_cast<std::uint64_t>(n) * elem);
    }
}

}  // namespace

void pack(const void* buf, long long count, MPI_Datatype type, std::byte* out, std::uint64_t bytes, MPI_Comm comm) {
    in_runs(count, type, bytes, [&](std::uint64_t at, MPI_Aint shift, int n, std::uint64_t run) {
        int position = 0;
        const char* from = static_cast<const char*>(buf) + shift;
        if (PMPI_Pack(from, n, type, out + at, static_cast<int>(run), &position, comm) != MPI_SUCCESS ||
            static_cast<std::uint64_t>(position) != run)
            throw Error("MPI_Pack of " + std::to_string(n) + " elements gave " + std::to_string(position) +
                        " bytes, expected " + std::to_string(run));
    });
}

void unpack(const std::byte* in, std::uint64_t bytes, void* buf, long long count, MPI_Datatype type, MPI_Comm comm) {
    in_runs(count, type, bytes, [&](std::uint64_t at, MPI_Aint shift, int n, std::uint64_t run) {
        int position = 0;
        char* to = static_cast<char*>(buf) + shift;
        if (PMPI_Unpack(in + at, static_cast<int>(run), &position, to, n, type, comm) != MPI_SUCCESS ||
            static_cast<std::uint64_t>(position) != run)
            throw Error("MPI_Unpack of " + std::to_string(n) + " elements read " + std::to_string(position) +
                        " bytes, expected " + std::to_string(run));
    });
}

}  // namespace gridcoll::pmpi
