// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule barrier_double_ring(const Request& r) { throw Error("barrier_double_ring: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
