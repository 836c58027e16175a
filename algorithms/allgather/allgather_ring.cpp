// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allgather_ring(const Request& r) { throw Error("allgather_ring: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
