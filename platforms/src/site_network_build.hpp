// Internal to platforms/: the networks between a placed platform's sites (site_network.cpp).
#pragma once

#include "gridcoll/algorithms/topology.hpp"
#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform {

// For every zone depth (Topology level) of two to 512 zones below the root: the network joining
// them, routed as the SimGrid XML generator routes it (Topology::set_site_network), and each
// route as a pair link of the level above where it has none (latency summed, smallest bandwidth).
void add_site_networks(const Platform& p, Topology& t);

}  // namespace gridcoll::platform
