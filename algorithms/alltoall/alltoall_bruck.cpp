// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule alltoall_bruck(const Request& r) { throw Error("alltoall_bruck: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
