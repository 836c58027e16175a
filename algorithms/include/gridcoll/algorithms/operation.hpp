// One collective operation as front ends and backends see it: the collective, the communicator
// (its size and its Topology, shared by all ranks), the root, the message size, the reduction's
// element type and operation, and the method. A schedule builder sees one rank of it (Request,
// collective.hpp); the backends (backend.hpp) run or predict it; result rows (result.hpp) report
// it. Text form, used in logs and error messages and read back by parse_operation:
//
//   bcast ranks=64 root=0 bytes=1M method=kary:k=4:seg=64K
//   allreduce ranks=8 bytes=4K type=double op=sum method=ring
//   bcast ranks=64 root=each bytes=64K method=binomial          (every rank in turn, when measuring)
//   gatherv ranks=8 root=0 bytes=1K counts=ramp method=linear   (irregular: blocks per rank)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/datatype.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll {

inline constexpr int kEveryRoot = -1;  // Operation::root: each rank in turn (measurements)

struct Operation {
    Collective coll = Collective::Bcast;
    int ranks = 1;
    int root = 0;  // or kEveryRoot; unrooted collectives ignore it
    std::uint64_t bytes = 0;  // m, as in collective.hpp's Request
    ElemType type = ElemType::Int32;  // reductions only
    ReduceOp op = ReduceOp::Sum;      // reductions only
    bool commutative = true;          // false: rank order must be kept (the checker's test)
    CountPattern counts = CountPattern::Even;  // irregular collectives: how blocks vary per rank
    Method method;
    std::shared_ptr<const Topology> topology;  // the communicator's; null = flat (one level)

    // Element size: the type's for reductions, 1 otherwise (no split element).
    std::uint64_t elem() const;
    // Rank `rank`'s view for the builders, with root `root` (a concrete rank).
    Request request(int rank, int root) const;
};

// The text form above (the Topology is not part of it).
std::string to_string(const Operation& op);
// Reads the text form; unknown keys, bad values and missing collective are Errors naming them.
Operation parse_operation(std::string_view text);

// Everything that can be checked before any backend starts: ranks >= 1, root in range, bytes a
// whole number of elements, the method known for the collective with only parameters it reads,
// a Topology of `ranks` ranks, and one where the algorithm needs it. Throws Error starting
// with the operation's text form.
void validate(const Operation& op);

}  // namespace gridcoll
