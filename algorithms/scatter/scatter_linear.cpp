// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule scatter_linear(const Request& r) { throw Error("scatter_linear: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
