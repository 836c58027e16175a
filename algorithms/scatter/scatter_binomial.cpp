// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule scatter_binomial(const Request& r) { throw Error("scatter_binomial: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
