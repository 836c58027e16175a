// The SMPI backend's settings read through its one table (backends.hpp), for the other programs
// gridcoll runs under smpirun: `gridcoll params measure` (gridcoll-plogp-smpi) and `gridcoll
// discover` (gridcoll-discover-smpi).
#pragma once

#include "gridcoll/backends/backends.hpp"
#include "gridcoll/sim/smpi_backend.hpp"

namespace gridcoll::backends {

// Keys the SMPI programs share with the bench: network_model, cfg, verbose.
extern const std::vector<std::string> kSmpiRunKeys;

// Throws Error naming the key and value at fault.
sim::SmpiSettings smpi_settings(const SettingValues& values);

}  // namespace gridcoll::backends
