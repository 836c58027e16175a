// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule gather_linear(const Request& r) { throw Error("gather_linear: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
