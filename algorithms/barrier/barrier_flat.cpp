// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule barrier_flat(const Request& r) { throw Error("barrier_flat: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
