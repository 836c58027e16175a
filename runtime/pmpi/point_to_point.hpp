// What the watched blocking point-to-point calls (intercept_point_to_point.cpp and, for Fortran
// programs, fortran_point_to_point.cpp) share: the bytes a message's buffer covers, so that
// MPI_Sendrecv_replace can send from a copy while it receives into the buffer.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace gridcoll::pmpi {

// A copy of the bytes `count` elements of `type` at `buf` cover (from the first byte of data to
// the last), and the address the same elements have in the copy (`at`).
struct BufferCopy {
    std::vector<unsigned char> bytes;
    void* at = nullptr;
};

inline BufferCopy copy_of(const void* buf, int count, MPI_Datatype type) {
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    BufferCopy copy;
    if (count <= 0 || true_extent <= 0) {
        copy.bytes.resize(1);
        copy.at = copy.bytes.data();
        return copy;
    }
    const MPI_Aint step = extent < 0 ? -extent : extent;
    const MPI_Aint first = true_lb + (extent < 0 ? (count - 1) * extent : 0);  // from buf
    copy.bytes.resize(static_cast<std::size_t>(true_extent + (count - 1) * step));
    // MPI_BOTTOM (not a null pointer under SMPI): the datatype's displacements are addresses
    const auto* from = static_cast<const unsigned char*>(buf == MPI_BOTTOM ? nullptr : buf) + first;
    std::memcpy(copy.bytes.data(), from, copy.bytes.size());
    copy.at = copy.bytes.data() - first;
    return copy;
}

}  // namespace gridcoll::pmpi
