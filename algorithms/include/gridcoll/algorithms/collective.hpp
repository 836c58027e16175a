// What one rank's schedule builder is asked to do (Request: the collective, the communicator
// shape, the message size and the method parameters), and the buffer layout every consumer
// agrees on. The whole operation, as front ends and backends see it, is gridcoll/operation.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/method.hpp"

namespace gridcoll {

class Topology;

enum class Collective : std::uint8_t {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Scan,
    Scatter,
    Gather,
    Allgather,
    Alltoall,
    ReduceScatter,       // irregular: rank j's part of the result is counts.block(j) bytes
    ReduceScatterBlock,  // every rank's part is m bytes
    Exscan,              // exclusive prefix: rank r gets ranks 0..r-1 combined; rank 0 nothing
    Allgatherv,
    Gatherv,
    Scatterv,
    Alltoallv,
};
inline constexpr std::size_t kCollectiveCount = 16;  // Collective's enumerators

const std::vector<Collective>& all_collectives();
std::string_view to_string(Collective c);
// Throws Error listing the valid names when `name` is not one.
Collective parse_collective(std::string_view name);
// True when the collective has a root rank.
bool is_rooted(Collective c);
// True when the collective combines data with a reduction operation.
bool is_reduction(Collective c);
// True for the irregular collectives, whose blocks are given per rank (Request::counts).
bool is_irregular(Collective c);

// The block sizes of an irregular collective, in bytes, shared by every rank's request.
//   allgatherv, gatherv, scatterv, reduce_scatter: block(j) = rank j's block (contributed,
//       received, or its part of the reduced vector); blocks lie in rank order, packed;
//   alltoallv: pair(i, j) = the bytes rank i sends rank j; rank i's In holds its blocks for
//       j = 0..P-1 packed in that order, rank j's Out the blocks from i = 0..P-1.
class Counts {
public:
    // Per-rank blocks.
    explicit Counts(std::vector<std::uint64_t> blocks);
    // A P x P matrix, row i = what rank i sends.
    Counts(int ranks, std::vector<std::uint64_t> matrix);

    bool is_matrix() const { return matrix_; }
    bool operator==(const Counts& o) const { return ranks_ == o.ranks_ && matrix_ == o.matrix_ && bytes_ == o.bytes_; }
    int ranks() const { return ranks_; }
    std::uint64_t block(int j) const { return bytes_[static_cast<std::size_t>(j)]; }
    std::uint64_t offset(int j) const { return offset_[static_cast<std::size_t>(j)]; }
    std::uint64_t total() const { return offset_.back(); }
    // Per-rank blocks: the rank whose block holds byte `at` of them packed in rank order.
    int owner(std::uint64_t at) const;
    // Matrix only.
    std::uint64_t pair(int i, int j) const { return bytes_[index(i, j)]; }
    std::uint64_t send_offset(int i, int j) const { return offset_[index(i, j)] - offset_[index(i, 0)]; }
    std::uint64_t recv_offset(int j, int i) const { return column_[index(j, i)] - column_[index(j, 0)]; }
    std::uint64_t send_total(int i) const { return offset_[index(i + 1, 0)] - offset_[index(i, 0)]; }
    std::uint64_t recv_total(int j) const { return column_[index(j + 1, 0)] - column_[index(j, 0)]; }

private:
    std::size_t index(int i, int j) const {
        return static_cast<std::size_t>(i) * static_cast<std::size_t>(ranks_) + static_cast<std::size_t>(j);
    }
    int ranks_ = 0;
    bool matrix_ = false;
    std::vector<std::uint64_t> bytes_;
    std::vector<std::uint64_t> offset_;  // prefix sums, row-major for a matrix; one more at the end
    std::vector<std::uint64_t> column_;  // matrix: prefix sums of the transpose (rank j's receives)
};

// How a benchmark or a simulation makes the blocks of an irregular collective from a nominal
// block m (the real ones come from the program's call): every pattern averages about m.
//   even:  every block m
//   ramp:  block j = 2m j / (P - 1), whole elements (0 at rank 0, 2m at the last)
//   zeros: 2m at even ranks, 0 at odd ranks (the zero counts MPI allows)
// A matrix (alltoallv) applies the pattern to (i + j) mod P.
enum class CountPattern : std::uint8_t { Even, Ramp, Zeros };
std::string_view to_string(CountPattern p);
// Throws Error listing the valid names.
CountPattern parse_count_pattern(std::string_view name);
std::shared_ptr<const Counts> make_counts(Collective c, int ranks, std::uint64_t bytes, std::uint64_t elem,
                                          CountPattern pattern);

// One rank's view of one operation.
//
// `bytes` is the message size m as the papers use it:
//   bcast, reduce, allreduce, scan: the whole vector, at every rank;
//   scatter, gather, allgather:     the block each rank sends or receives;
//   alltoall:                       the block each rank sends to each other rank;
//   reduce_scatter_block, exscan:   the block each rank receives (exscan: the whole vector);
//   v-variants, reduce_scatter:     nominal only; the blocks are `counts`;
//   barrier:                        ignored (0).
struct Request {
    Collective coll = Collective::Bcast;
    int size = 1;
    int rank = 0;
    int root = 0;
    std::uint64_t bytes = 0;
    std::uint64_t elem = 1;     // element size: reductions never split an element
    bool commutative = true;    // the reduction operation commutes
    MethodParams params;
    const Topology* topology = nullptr;  // for hierarchical algorithms
    std::shared_ptr<const Counts> counts;  // irregular collectives only
};

// Block j of a request's blocks: counts->block(j) for an irregular collective, else m, and
// where it starts in a packed buffer of every rank's block in rank order.
std::uint64_t block_bytes(const Request& r, int j);
std::uint64_t block_offset(const Request& r, int j);

// Sizes of a rank's In and Out buffers for a request (Tmp is declared by the schedule).
//   bcast:      Out = m (the root's Out holds the message on entry)
//   reduce:     In = m, Out = m at the root only
//   allreduce:  In = m, Out = m          scan: In = m, Out = m (inclusive prefix)
//   scatter:    In = P*m at the root, Out = m
//   gather:     In = m, Out = P*m at the root
//   allgather:  In = m, Out = P*m        alltoall: In = P*m, Out = P*m (block j for rank j)
//   reduce_scatter_block: In = P*m, Out = m        exscan: In = m, Out = m (none at rank 0)
//   reduce_scatter: In = total, Out = block(r)     allgatherv: In = block(r), Out = total
//   gatherv: In = block(r), Out = total at the root
//   scatterv: In = total at the root, Out = block(r)
//   alltoallv: In = send_total(r), Out = recv_total(r)
struct BufferSizes {
    std::uint64_t in = 0;
    std::uint64_t out = 0;
};
BufferSizes buffer_sizes(const Request& r);

// Checks a request's fields (size >= 1, rank and root in range, bytes a multiple of elem, ...)
// and throws Error naming the bad field and value.
void validate(const Request& r);

}  // namespace gridcoll
