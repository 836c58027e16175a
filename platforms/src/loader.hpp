// Private to the loader: the two halves of reading a description, called by parse_platform
// (load.cpp) in this order: the zone tree (load_zones.cpp), then the placement, which needs the
// hosts (load_placement.cpp). Both throw gridcoll::Error "file:line:column: key: what".
#pragma once

#include <string>

#include "gridcoll/platforms/platform.hpp"
#include "tomlpp.hpp"

namespace gridcoll::platform::detail {

// The root zone ([zone], key path "zone") with every count expanded and every name checked.
Zone read_zones(const toml::table& zone, const std::string& origin);

// The [placement] table (nullptr when absent) of platform `p`, whose zones are read; checks
// host names and ranks against the cores. `doc` locates the whole file.
Placement read_placement(const toml::table* placement, const Platform& p, const SourceLoc& doc);

// The contents of a file, or Error "cannot read \"<path>\" (<why>)" — also for a directory or a
// file larger than kMaxFileBytes.
std::string read_file(const std::string& path);

}  // namespace gridcoll::platform::detail
