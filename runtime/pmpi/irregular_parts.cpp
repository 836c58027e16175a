#include "irregular_parts.hpp"

#include <cstring>

#include "gridcoll/algorithms/registry.hpp"
#include "nonblocking.hpp"

namespace gridcoll::pmpi {

namespace {

std::byte* block_address(const VBuffer& v, int j) {
    const MPI_Aint unit = v.types ? 1 : extent_of(v.type);  // alltoallw's displacements are in bytes
    const MPI_Aint displ = v.displs ? static_cast<MPI_Aint>(v.displs[j]) * unit : 0;
    return static_cast<std::byte*>(const_cast<void*>(v.buf)) + displ;
}

}  // namespace

// An empty block's datatype is never asked about: MPI reads it only where the count is positive
// (it may be anything, MPI_DATATYPE_NULL included); a negative count (erroneous) moves nothing.
std::uint64_t VBuffer::bytes(int j) const { return counts[j] <= 0 ? 0 : layout_of(type_of(j), counts[j]).bytes; }

std::vector<std::uint64_t> VBuffer::all_bytes() const {
    std::vector<std::uint64_t> b(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) b[static_cast<std::size_t>(j)] = bytes(j);
    return b;
}

bool VBuffer::packed() const {
    Layout one;  // block j's datatype's (the same for every block without `types`)
    if (!types) {
        one = layout_of(type, 1);
        if (!one.contiguous) return false;
        if (!displs) return true;
    }
    const std::byte* start = first();
    std::uint64_t at = 0;
    for (int j = 0; j < n; ++j) {
        if (counts[j] <= 0) continue;  // no bytes, anywhere
        if (types) one = layout_of(types[j], 1);
        if (!one.contiguous || data_of(block_address(*this, j), one) != start + at) return false;
        at += bytes(j);
    }
    return true;
}

std::byte* VBuffer::first() const {
    for (int j = 0; j < n; ++j)
        if (counts[j] > 0) return data_of(block_address(*this, j), layout_of(type_of(j), 1));
    return static_cast<std::byte*>(const_cast<void*>(buf));  // no bytes at all
}

const std::byte* blocks_in(CommState& cs, int which, const VBuffer& v, MPI_Comm comm) {
    if (v.packed()) return v.first();
    std::uint64_t total = 0;
    for (int j = 0; j < v.n; ++j) total += v.bytes(j);
    std::byte* p = cs.scratch(which, total);
    std::uint64_t at = 0;
    for (int j = 0; j < v.n; ++j) {
        const std::uint64_t b = v.bytes(j);
        if (b > 0) pack(block_address(v, j), v.counts[j], v.type_of(j), p + at, b, comm);
        at += b;
    }
    return p;
}

std::byte* blocks_out(CommState& cs, int which, const VBuffer& v) {
    if (v.packed()) return v.first();
    std::uint64_t total = 0;
    for (int j = 0; j < v.n; ++j) total += v.bytes(j);
    return cs.scratch(which, total);
}

namespace {

void unpack_blocks(const std::byte* packed, const VBuffer& v, MPI_Comm comm, int skip) {
    std::uint64_t at = 0;
    for (int j = 0; j < v.n; ++j) {
        const std::uint64_t b = v.bytes(j);
        if (b > 0 && j != skip) unpack(packed + at, b, block_address(v, j), v.counts[j], v.type_of(j), comm);
        at += b;
    }
}

}  // namespace

void blocks_out_finish(const std::byte* packed, const VBuffer& v, MPI_Comm comm, int skip) {
    if (v.packed()) return;
    if (!engine().building()) return unpack_blocks(packed, v, comm, skip);
    // A program may free its count and displacement arrays as soon as a non-blocking call returns
    // (MPI's own read them at the call; mpi4py 3.1 frees them there): the unpacking keeps copies.
    std::vector<long long> counts = v.counts.copy(v.n), displs;
    if (v.displs) displs = v.displs.copy(v.n);
    if (v.types) {  // alltoallw: its datatypes held by the operation (run_nonblocking), the array copied
        when_complete([=, counts = std::move(counts), displs = std::move(displs),
                       types = std::vector<MPI_Datatype>(v.types, v.types + v.n)] {
            VBuffer own = v;
            own.counts = counts.data();
            own.displs = displs.data();
            own.types = types.data();
            unpack_blocks(packed, own, comm, skip);
        });
        return;
    }
    unpack_at_completion([=, counts = std::move(counts), displs = std::move(displs)](MPI_Datatype type) {
        VBuffer own = v;
        own.counts = counts.data();
        own.displs = v.displs ? Ints(displs.data()) : Ints();
        own.type = type;
        unpack_blocks(packed, own, comm, skip);
    }, v.type);
}

void execute_irregular(CommState& cs, const CallShape& call, const Choice& ch, int root,
                       std::shared_ptr<const Counts> counts, Buffers b, const ReduceFn* reduce, MPI_Request* nb) {
    std::shared_ptr<const BuiltSchedule> s = cs.irregular_schedule(call, ch.method, root, std::move(counts));
    b.tmp = cs.scratch(kTmp, s->schedule.tmp_bytes());
    cs.run(std::move(s), b, reduce, nb);
}

bool needs_all_counts(const CallShape& call, const Choice& ch) {
    return find_algorithm(call.coll, ch.method.algorithm).needs_all_counts;
}

std::uint64_t nominal_bytes(std::uint64_t total, int ranks, std::uint64_t elem) {
    if (elem == 0) return 0;  // a datatype of no bytes
    const std::uint64_t elems = total / elem, n = static_cast<std::uint64_t>(ranks);
    return (elems + n - 1) / n * elem;
}

}  // namespace gridcoll::pmpi
