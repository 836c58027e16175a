// Checking a generated SimGrid platform against its description: what SimGrid's router says a
// route between two hosts costs (latency, bottleneck bandwidth), next to what platforms/FORMAT.md
// says it should cost, computed from the description alone — independently of how simgrid_xml()
// builds the XML. Used by tests/platforms/route_check_main.cpp (gridcoll_route_check).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform {

using HostPair = std::pair<std::string, std::string>;

struct RouteCost {
    double latency_s = 0;            // sum of the one-way latencies along the route
    double bandwidth_Bps = 0;        // bottleneck: the smallest bandwidth along the route (inf if unlimited)
    std::vector<std::string> parts;  // SimGrid: link names; expected: what each term is
};

struct SimgridHost {
    std::string name;
    double speed_flops = 0;  // per core
    int cores = 0;
};

struct SimgridPlatform {
    std::vector<RouteCost> routes;   // one per requested pair, in order
    std::vector<SimgridHost> hosts;  // every host SimGrid knows, sorted by name
};

// Loads the SimGrid XML platform `xml_path` with s4u (creating this process's one
// simgrid::s4u::Engine from argc/argv: call it at most once per process), seals it, and reads
// each pair's route with Host::route_to. Throws (gridcoll::Error or SimGrid's exceptions) when
// the file does not load or a host is unknown; some SimGrid parse errors abort the process.
SimgridPlatform measure_simgrid_platform(int* argc, char** argv, const std::string& xml_path,
                                         const std::vector<HostPair>& pairs);

// What FORMAT.md says a message from host `a` to host `b` costs: the source node's leaf network
// from the node to its zone's edge and every enclosing zone's up to the group where the two
// paths meet (each crossing = half that zone's member-to-member latency, at that zone's
// bandwidth), that group's member-to-member network, the same back down, and every gateway left
// or entered (overhead as latency, bandwidth as a limit). Same host: core_link. Throws Error
// for an unknown host.
//
// Where FORMAT.md leaves a choice, this reading is used (and simgrid_xml() follows it):
//   switched with backbone   member to member = link latency + backbone latency, bottleneck
//                            min(link, backbone); the edge is half of that latency.
//   ring                     the edge is half of one hop (the zone's link latency).
//   explicit                 the path of least latency, ties (within 1e-9) to the widest; the
//                            edge is half the zone's `link` latency at its bandwidth, free and
//                            unlimited when the zone has no `link`.
RouteCost expected_route(const Platform& p, const std::string& a, const std::string& b);

struct RouteSample {
    HostPair hosts;
    std::string zone;   // the zone whose network joins them (their deepest common zone)
    std::string level;  // that zone's level, or "core" for two processes of one node
};

// A deterministic sample of host pairs covering every level: for each level, a few of its zones
// (first, last, in between, and one of each network kind), and in each `per_zone` pairs of hosts in
// different members (first / last / middle members and hosts, both directions; every ordered
// member pair of small ring and explicit zones), never twice the same node; plus one pair
// (host, itself) per sampled leaf, which checks core_link.
std::vector<RouteSample> sample_route_pairs(const Platform& p, int per_zone = 3);

}  // namespace gridcoll::platform
