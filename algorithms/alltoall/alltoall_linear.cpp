// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule alltoall_linear(const Request& r) { throw Error("alltoall_linear: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
