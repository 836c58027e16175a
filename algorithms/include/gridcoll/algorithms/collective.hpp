// What one rank's schedule builder is asked to do (Request: the collective, the communicator
// shape, the message size and the method parameters), and the buffer layout every consumer
// agrees on. The whole operation, as front ends and backends see it, is gridcoll/operation.hpp.
#pragma once

#include <cstdint>
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
};
inline constexpr std::size_t kCollectiveCount = 9;  // Collective's enumerators

const std::vector<Collective>& all_collectives();
std::string_view to_string(Collective c);
// Throws Error listing the valid names when `name` is not one.
Collective parse_collective(std::string_view name);
// True when the collective has a root rank.
bool is_rooted(Collective c);
// True when the collective combines data with a reduction operation.
bool is_reduction(Collective c);

// One rank's view of one operation.
//
// `bytes` is the message size m as the papers use it:
//   bcast, reduce, allreduce, scan: the whole vector, at every rank;
//   scatter, gather, allgather:     the block each rank sends or receives;
//   alltoall:                       the block each rank sends to each other rank;
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
};

// Sizes of a rank's In and Out buffers for a request (Tmp is declared by the schedule).
//   bcast:      Out = m (the root's Out holds the message on entry)
//   reduce:     In = m, Out = m at the root only
//   allreduce:  In = m, Out = m          scan: In = m, Out = m (inclusive prefix)
//   scatter:    In = P*m at the root, Out = m
//   gather:     In = m, Out = P*m at the root
//   allgather:  In = m, Out = P*m        alltoall: In = P*m, Out = P*m (block j for rank j)
struct BufferSizes {
    std::uint64_t in = 0;
    std::uint64_t out = 0;
};
BufferSizes buffer_sizes(const Request& r);

// Checks a request's fields (size >= 1, rank and root in range, bytes a multiple of elem, ...)
// and throws Error naming the bad field and value.
void validate(const Request& r);

}  // namespace gridcoll
