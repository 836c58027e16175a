// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allreduce_reduce_bcast(const Request& r) { throw Error("allreduce_reduce_bcast: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
