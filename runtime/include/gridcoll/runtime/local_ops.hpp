// Predefined reduction operations (gridcoll/datatype.hpp) applied locally by the executor (the same
// code on both MPIs, so a simulated run computes exactly what a real one does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gridcoll/algorithms/datatype.hpp"
#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll {

// dst = src op dst (Order::SrcLeft) or dst = dst op src (Order::DstLeft), element-wise over
// `bytes` bytes (a whole number of elements).
void reduce_local(ElemType t, ReduceOp op, const std::byte* src, std::byte* dst, std::size_t bytes, Order order);

}  // namespace gridcoll
