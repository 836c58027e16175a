// The MPI library's own collective (MPI_Bcast, MPI_Reduce, ...) for the same request, so the
// benchmark can put gridcoll's algorithms beside Open MPI's or SimGrid's built-in ones.
#pragma once

#include <mpi.h>

#include "gridcoll/runtime/executor.hpp"
#include "gridcoll/algorithms/collective.hpp"

namespace gridcoll {

// Calls the native collective on `comm`; buffers follow collective.hpp's layout.
void run_native(const Request& r, const Buffers& b, ElemType type, ReduceOp op, MPI_Comm comm);

}  // namespace gridcoll
