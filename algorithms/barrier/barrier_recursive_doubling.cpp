// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule barrier_recursive_doubling(const Request& r) { throw Error("barrier_recursive_doubling: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
