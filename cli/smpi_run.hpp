// What every SMPI run of the CLI shares: turning --platform (a description or SimGrid XML +
// hostfile) into files smpirun can read, and the smpirun command line with gridcoll's settings.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "output_file.hpp"

namespace gridcoll::cli {

struct SmpiPlatform {
    std::string xml, hostfile, rank_map;  // rank_map: only for descriptions (empty otherwise)
    int ranks = 0;
    std::unique_ptr<ScratchDir> scratch;  // generated files, removed when done
};

// A .toml description: generates XML, hostfile and rank map for `ranks` ranks (0 = the
// description's placement); `hostfile` must be empty. A .xml platform needs `hostfile` and
// `ranks`. Errors name the offending file or option.
SmpiPlatform prepare_smpi_platform(const std::string& platform, const std::string& hostfile, int ranks);

struct SmpiSettings {
    std::string network_model = "ideal";  // ideal (CM02: latency + bytes/bandwidth) or smpi
    bool no_privatize = false;
    bool verbose = false;
    std::vector<std::string> cfg;  // extra KEY:VALUE
};

// smpirun ... up to (not including) the program: deterministic, machine-independent settings.
std::vector<std::string> smpirun_command(const SmpiPlatform& p, const SmpiSettings& s);

// A program built next to gridcoll (e.g. gridcoll-bench-smpi), or `override` when given.
std::string sibling_program(const std::string& name, const std::string& override_path = "");

// Checks that a hostfile lists at least one slot (host or host:N lines); returns the count.
std::size_t count_hosts(const std::string& hostfile);

}  // namespace gridcoll::cli
