// Declarations of every schedule builder. Internal to algorithms/: the public way in is the
// registry (gridcoll/registry.hpp). Adding an algorithm = one builder here + one registry line.
#pragma once

#include "gridcoll/collective.hpp"
#include "gridcoll/schedule.hpp"

namespace gridcoll::detail {

// bcast/
Schedule bcast_linear(const Request& r);
Schedule bcast_pipeline(const Request& r);
Schedule bcast_binomial(const Request& r);
Schedule bcast_binary(const Request& r);
Schedule bcast_kary(const Request& r);
Schedule bcast_kchain(const Request& r);
Schedule bcast_splitted_binary(const Request& r);

// reduce/
Schedule reduce_flat(const Request& r);
Schedule reduce_pipeline(const Request& r);
Schedule reduce_binomial(const Request& r);
Schedule reduce_binary(const Request& r);
Schedule reduce_kchain(const Request& r);

}  // namespace gridcoll::detail
