// gridcoll._core: the C++ library seen from Python (pybind11). One register_* function per area,
// each in its own file; module.cpp calls them in order. The Pythonic package python/gridcoll
// re-exports these names with docstrings and type stubs (_core.pyi).
#pragma once

#include <pybind11/pybind11.h>

#include "gridcoll/algorithms/result.hpp"

namespace gridcoll::bind {

void register_errors(pybind11::module_& m);     // gridcoll::Error -> gridcoll.Error (a ValueError)
void register_registry(pybind11::module_& m);   // collectives, algorithms, methods, schedules, checker
void register_topology(pybind11::module_& m);   // Topology, platforms (descriptions and SimGrid XML)
void register_model(pybind11::module_& m);      // parameters, closed forms, P-LogP optimiser, decisions
void register_backends(pybind11::module_& m);   // batches through closed form, event simulator, SMPI, emulation

// A result row as a Python dict (the CSV columns of result.hpp, plus backend-independent keys).
pybind11::dict row_to_dict(const ResultRow& row);

}  // namespace gridcoll::bind
