// Element types and predefined reduction operations applied locally by the executor (the same
// code on both MPIs, so a simulated run computes exactly what a real one does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gridcoll/schedule.hpp"

namespace gridcoll {

enum class ElemType : std::uint8_t { Int32, Int64, Float, Double };
enum class ReduceOp : std::uint8_t { Sum, Prod, Min, Max };

std::size_t elem_size(ElemType t);
std::string_view to_string(ElemType t);
std::string_view to_string(ReduceOp op);
// Throw Error listing the valid names.
ElemType parse_elem_type(std::string_view name);
ReduceOp parse_reduce_op(std::string_view name);

// dst = src op dst (Order::SrcLeft) or dst = dst op src (Order::DstLeft), element-wise over
// `bytes` bytes (a whole number of elements).
void reduce_local(ElemType t, ReduceOp op, const std::byte* src, std::byte* dst, std::size_t bytes, Order order);

}  // namespace gridcoll
