// What the irregular collectives (irregular.cpp) share: an MPI buffer of per-rank blocks
// (counts and displacements in elements of a datatype) as gridcoll's packed layout — blocks in
// rank order, back to back (collective.hpp's Counts) — used in place when it already is that,
// else packed into scratch and unpacked after; and running a chosen method on given counts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "call_parts.hpp"
#include "count_array.hpp"

namespace gridcoll::pmpi {

// `n` blocks of `type` at `buf`: block j is counts[j] elements from displs[j] extents on
// (displs null: packed one after another). With `types` (MPI_Alltoallw's), block j is of its own
// datatype types[j], and displs[j] counts bytes.
struct VBuffer {
    const void* buf = nullptr;
    Ints counts;
    Ints displs;
    MPI_Datatype type = MPI_BYTE;
    int n = 0;
    const MPI_Datatype* types = nullptr;

    MPI_Datatype type_of(int j) const { return types ? types[j] : type; }
    std::uint64_t bytes(int j) const;          // block j's bytes in transit
    std::vector<std::uint64_t> all_bytes() const;
    // The blocks already lie packed in rank order in memory (contiguous types, each block where
    // the one before ends): then gridcoll works on them in place.
    bool packed() const;
    std::byte* first() const;                  // where the first block of any bytes starts
};

// The blocks as packed bytes: in place, or copied into scratch `which`.
const std::byte* blocks_in(CommState& cs, int which, const VBuffer& v, MPI_Comm comm);
// Where the blocks are to land: in place, or scratch `which` (then blocks_out_finish unpacks).
std::byte* blocks_out(CommState& cs, int which, const VBuffer& v);
void blocks_out_finish(const std::byte* packed, const VBuffer& v, MPI_Comm comm, int skip = -1);

// Runs method `ch` of an irregular call on `counts`; reductions by `reduce`.
void execute_irregular(CommState& cs, const CallShape& call, const Choice& ch, int root,
                       std::shared_ptr<const Counts> counts, Buffers b, const ReduceFn* reduce, MPI_Request* nb = nullptr);

// Whether the chosen method reads counts MPI gave only to other ranks (registry.hpp).
bool needs_all_counts(const CallShape& call, const Choice& ch);

// The nominal per-rank block of an irregular call, from bytes every rank knows (0 when none).
std::uint64_t nominal_bytes(std::uint64_t total, int ranks, std::uint64_t elem);

}  // namespace gridcoll::pmpi
