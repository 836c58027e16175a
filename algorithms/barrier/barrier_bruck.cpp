// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule barrier_bruck(const Request& r) { throw Error("barrier_bruck: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
