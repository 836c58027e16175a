// Private: rank placement by host index, for the loader's checks and the Topology, which need no
// host names (see placement.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform::detail {

// Cores of all nodes under `z`.
std::int64_t total_cores(const Zone& z);

// The index in `hs` (= hosts(p)) of each rank's host; see place_ranks.
std::vector<std::size_t> place_rank_indices(const Platform& p, int ranks, const std::vector<Host>& hs);

}  // namespace gridcoll::platform::detail
