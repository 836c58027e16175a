// gridcoll::Error (bad input: a file and line, an unknown name, an impossible value) becomes
// gridcoll.Error, a subclass of ValueError carrying the same message.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "gridcoll/algorithms/error.hpp"

namespace py = pybind11;

namespace gridcoll::bind {

void register_errors(py::module_& m) { py::register_exception<Error>(m, "Error", PyExc_ValueError); }

}  // namespace gridcoll::bind
