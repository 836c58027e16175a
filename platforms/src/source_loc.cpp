// SourceLoc: where a value of a platform description came from, printed as "file:line:column".
#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform {

std::string SourceLoc::str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }

}  // namespace gridcoll::platform
