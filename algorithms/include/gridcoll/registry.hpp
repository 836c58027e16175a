// The registry: (collective, algorithm name) -> builder. The CLI, the benchmark driver, the
// tests and (later) the Python bindings all enumerate this one table.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/collective.hpp"
#include "gridcoll/schedule.hpp"

namespace gridcoll {

using Builder = Schedule (*)(const Request&);

struct Algorithm {
    Collective coll;
    std::string name;
    std::string description;  // one line, with the paper it comes from
    Builder build;
    bool segmented = false;     // honours MethodParams::segment
    bool uses_fanout = false;   // honours MethodParams::fanout
    // Reductions only: combines in rank order, so it is correct for a non-commutative
    // operation. An algorithm without it refuses such a request with an Error.
    bool keeps_order = true;
    bool needs_topology = false;
};

const std::vector<Algorithm>& all_algorithms();
std::vector<const Algorithm*> algorithms_for(Collective c);
// Throws Error listing the valid names for the collective when `name` is unknown.
const Algorithm& find_algorithm(Collective c, std::string_view name);

// Validates the request, then builds rank r.rank's schedule with the named algorithm.
Schedule build_schedule(const Request& r, std::string_view algorithm);

}  // namespace gridcoll
