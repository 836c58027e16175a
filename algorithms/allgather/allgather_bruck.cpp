// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allgather_bruck(const Request& r) { throw Error("allgather_bruck: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
