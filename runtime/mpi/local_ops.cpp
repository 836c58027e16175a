#include "gridcoll/runtime/local_ops.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll {

namespace {

template <class T, class F>
void combine(const std::byte* src, std::byte* dst, std::size_t bytes, Order order, F f) {
    const std::size_t n = bytes / sizeof(T);
    for (std::size_t i = 0; i < n; ++i) {
        T a, b;
        std::memcpy(&a, src + i * sizeof(T), sizeof(T));
        std::memcpy(&b, dst + i * sizeof(T), sizeof(T));
        const T r = order == Order::SrcLeft ? f(a, b) : f(b, a);
        std::memcpy(dst + i * sizeof(T), &r, sizeof(T));
    }
}

template <class T>
void apply(ReduceOp op, const std::byte* src, std::byte* dst, std::size_t bytes, Order order) {
    switch (op) {
        case ReduceOp::Sum: return combine<T>(src, dst, bytes, order, [](T a, T b) { return static_cast<T>(a + b); });
        case ReduceOp::Prod: return combine<T>(src, dst, bytes, order, [](T a, T b) { return static_cast<T>(a * b); });
        case ReduceOp::Min: return combine<T>(src, dst, bytes, order, [](T a, T b) { return std::min(a, b); });
        case ReduceOp::Max: return combine<T>(src, dst, bytes, order, [](T a, T b) { return std::max(a, b); });
    }
}

}  // namespace

void reduce_local(ElemType t, ReduceOp op, const std::byte* src, std::byte* dst, std::size_t bytes, Order order) {
    switch (t) {
        case ElemType::Int32: return apply<std::int32_t>(op, src, dst, bytes, order);
        case ElemType::Int64: return apply<std::int64_t>(op, src, dst, bytes, order);
        case ElemType::Float: return apply<float>(op, src, dst, bytes, order);
        case ElemType::Double: return apply<double>(op, src, dst, bytes, order);
    }
}

}  // namespace gridcoll
