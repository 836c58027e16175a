// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule gather_binomial(const Request& r) { throw Error("gather_binomial: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
