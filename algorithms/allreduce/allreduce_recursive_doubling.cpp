// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allreduce_recursive_doubling(const Request& r) { throw Error("allreduce_recursive_doubling: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
