// The extension module gridcoll._core (see bindings.hpp).
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
    m.doc() = "gridcoll's C++ core: registry, schedules, Topology, platforms, models, optimiser, decisions, backends";
    gridcoll::bind::register_errors(m);
    gridcoll::bind::register_registry(m);
    gridcoll::bind::register_topology(m);
    gridcoll::bind::register_model(m);
    gridcoll::bind::register_backends(m);
}
