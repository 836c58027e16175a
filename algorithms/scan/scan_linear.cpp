// STUB: to be implemented.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule scan_linear(const Request& r) { throw Error("scan_linear: not implemented yet"); (void)r; }

}  // namespace gridcoll::detail
