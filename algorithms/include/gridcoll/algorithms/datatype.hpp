// Element types and predefined reduction operations of reductions (MPI's predefined datatypes
// and operations that gridcoll's executor applies itself; all four operations commute).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gridcoll {

enum class ElemType : std::uint8_t { Int32, Int64, Float, Double };
enum class ReduceOp : std::uint8_t { Sum, Prod, Min, Max };

std::size_t elem_size(ElemType t);
std::string_view to_string(ElemType t);
std::string_view to_string(ReduceOp op);
// Throw Error listing the valid names.
ElemType parse_elem_type(std::string_view name);
ReduceOp parse_reduce_op(std::string_view name);

}  // namespace gridcoll
