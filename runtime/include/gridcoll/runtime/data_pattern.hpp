// Test data for the benchmark driver: deterministic inputs for every rank and repetition, and
// the exact expected output, so every operation's result can be verified at every rank.
// Reduction inputs are small integers (exact in float and double, no overflow in int32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/runtime/local_ops.hpp"

namespace gridcoll {

struct DataSpec {
    Collective coll;
    int size;
    int root;
    std::uint64_t bytes;
    ElemType type;
    ReduceOp op;
    int rep;  // changes the data between repetitions
    std::shared_ptr<const Counts> counts = nullptr;  // irregular collectives
};

// Fills rank `rank`'s In buffer (and, for a broadcast root, Out) with its input; fills the
// rest of Out with a poison value.
void fill_inputs(const DataSpec& d, int rank, std::byte* in, std::uint64_t in_bytes, std::byte* out,
                 std::uint64_t out_bytes);

// Returns an empty string when rank `rank`'s Out holds the right result, else a description of
// the first wrong byte.
std::string verify_output(const DataSpec& d, int rank, const std::byte* out, std::uint64_t out_bytes);

}  // namespace gridcoll
