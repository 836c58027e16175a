#include "gridcoll/algorithms/datatype.hpp"

#include <string>

#include "gridcoll/algorithms/error.hpp"

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

}  // namespace gridcoll
