// The one exception type of gridcoll: every error reported to a user is an Error whose message
// names the offending file, line, option or value.
#pragma once

#include <stdexcept>

namespace gridcoll {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace gridcoll
