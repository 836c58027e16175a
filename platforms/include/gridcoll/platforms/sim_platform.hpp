// A platform to simulate on, as the simulate front ends name it: a description (.toml), whose
// placement gives the ranks and their Topology, or a SimGrid XML file with a hostfile (one host
// per line, or host:N for N ranks), whose zone tree gives the Topology where gridcoll was built
// with SimGrid's platform import.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::platform {

struct SimPlatform {
    std::string path;      // the .toml or .xml file
    std::string hostfile;  // .xml only
    int ranks = 0;
    std::optional<platform::Platform> description;  // .toml only
    std::shared_ptr<const Topology> topology;       // null: unknown (XML without SimGrid import)
};

// `ranks` 0 means all: the description's placement, or one rank per hostfile slot. Errors name
// the file, line or option at fault (an unreadable file, a hostfile for a description, more
// ranks than the hostfile has slots, ...). `placement` (descriptions only): "block" or
// "round-robin" instead of the description's own policy; empty keeps it.
SimPlatform load_sim_platform(const std::string& path, const std::string& hostfile = "", int ranks = 0,
                              const std::string& placement = "");

// Slots in a hostfile (host lines count 1, host:N lines N); Error naming file:line for a bad
// count, or a hostfile without hosts.
int count_hostfile_slots(const std::string& hostfile);

}  // namespace gridcoll::platform
