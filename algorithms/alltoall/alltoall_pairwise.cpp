// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule alltoall_pairwise(const Request& r) { throw Error("alltoall_pairwise: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
