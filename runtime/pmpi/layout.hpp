// Where an (address, count, datatype) triple keeps its bytes, as the PMPI library needs it:
// the bytes in transit (count x the type's size, the same at every rank by MPI's type matching
// rules), whether they lie in one run in memory in pack order (then the executor works on
// them in place), and packing to / unpacking from a contiguous scratch buffer otherwise.
//
// Contiguous = a predefined type, or a contiguous type of one, with no gap between or inside
// elements (size = extent = true extent). Anything else (vectors, structs, resized types, a
// predefined pair type such as MPI_DOUBLE_INT with its padding) is packed; reductions on such
// types go to the MPI library (choice.hpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace gridcoll::pmpi {

struct Layout {
    std::uint64_t bytes = 0;    // count x the type's size
    std::uint64_t elem = 1;     // the type's size
    bool contiguous = false;
    MPI_Aint true_lb = 0;       // where the first byte lies, from the address
};

Layout layout_of(MPI_Datatype type, long long count);  // an int form's count or a large-count form's

// `type` itself when predefined, the predefined type a contiguous type repeats, else
// MPI_DATATYPE_NULL.
MPI_Datatype predefined_base(MPI_Datatype type);

// The first byte of a contiguous layout's data.
inline std::byte* data_of(const void* buf, const Layout& l) {
    return static_cast<std::byte*>(const_cast<void*>(buf)) + l.true_lb;
}

// `count` elements of `type` at `buf` into the `bytes` bytes at `out` (MPI_Pack), and back.
// Throw Error when the packed form is not the raw bytes' size (a heterogeneous MPI).
void pack(const void* buf, long long count, MPI_Datatype type, std::byte* out, std::uint64_t bytes, MPI_Comm comm);
void unpack(const std::byte* in, std::uint64_t bytes, void* buf, long long count, MPI_Datatype type, MPI_Comm comm);

}  // namespace gridcoll::pmpi
