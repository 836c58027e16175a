// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allreduce_ring(const Request& r) { throw Error("allreduce_ring: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
