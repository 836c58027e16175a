// The builtin decision's two questions (builtin.cpp): are the Topology's sites joined by a WAN,
// and which method wins there at a message size. Internal to algorithms/choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::detail {

// Why the Topology does not have sites joined by a WAN ("one site", "site links (400 us) within
// 10x of the links below them (500 us)"), or nothing when it does. The Topology is not flat.
std::optional<std::string> not_wan_sites(const Topology& t);

// Whether the sites' network (Topology::site_network of the sites' level) is a graph rather
// than a full mesh of equal links: a link that two routes ride, or links of different speeds.
bool wan_is_graph(const Topology& t);

// The topology-aware method for collective `c` at `bytes` between the WAN sites of `t`
// (`graph`: joined by a graph, wan_is_graph); nothing: the MPI library's own is faster there.
std::optional<Method> wan_method(const Topology& t, Collective c, std::uint64_t bytes, bool graph = false);

// How many leaders a site's allreduce or broadcast of `bytes` spreads its WAN messages over
// (coleaders.cpp): 1 unless one leader's node link would take a tenth of a WAN latency longer to
// pass its C - 1 messages than k leaders, the `hand_offs` LAN messages to (and back from, for the
// allreduce: 2) each co-leader included, and a message's time over its WAN link being the least
// any of them takes (link numbers needed).
int leaders_per_site(const Topology& t, std::uint64_t bytes, int hand_offs = 2);

}  // namespace gridcoll::detail
