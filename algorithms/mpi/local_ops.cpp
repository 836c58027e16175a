#include "local_ops.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "gridcoll/error.hpp"

namespace gridcoll {

std::size_t elem_size(ElemType t) {
    switch (t) {
        case ElemType::Int32: return 4;
        case ElemType::Int64: return 8;
        case ElemType::Float: return 4;
        case ElemType::Double: return 8;
    }
    return 1;
}

std::string_view to_string(ElemType t) {
    switch (t) {
        case ElemType::Int32: return "int32";
        case ElemType::Int64: return "int64";
        case ElemType::Float: return "float";
        case ElemType::Double: return "double";
    }
    return "?";
}

std::string_view to_string(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum: return "sum";
        case ReduceOp::Prod: return "prod";
        case ReduceOp::Min: return "min";
        case ReduceOp::Max: return "max";
    }
    return "?";
}

ElemType parse_elem_type(std::string_view n) {
    for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float, ElemType::Double})
        if (to_string(t) == n) return t;
    throw Error("unknown element type '" + std::string(n) + "' (valid: int32, int64, float, double)");
}

ReduceOp parse_reduce_op(std::string_view n) {
    for (ReduceOp o : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max})
        if (to_string(o) == n) return o;
    throw Error("unknown reduction operation '" + std::string(n) + "' (valid: sum, prod, min, max)");
}

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
