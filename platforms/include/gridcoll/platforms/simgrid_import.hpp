// The Topology of a user's own SimGrid platform: the multilevel view (paper 001) read from the
// zone tree of a SimGrid XML file, for ranks placed on its hosts by a hostfile.
//
// Needs SimGrid's s4u API (library gridcoll_simgrid_platforms, built when SMPI is found).
#pragma once

#include <string>

#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll {

// Loads the SimGrid platform `xml_path` (with simgrid::s4u::Engine) and the hostfile
// `hostfile_path`, and returns the Topology of the ranks it places.
//
// Hostfile: one host per line (rank order), or `host:N` for N consecutive ranks on that host.
// Blank lines and comments (from `#` to the end of the line) are ignored.
//
// Levels: level l of a rank is the ancestor NetZone of its host at depth l — the root zone is
// level 0 (all ranks share it), its children level 1, and so on down to the zone that holds the
// host; one final level follows: the host itself ("node": ranks on one host share it). Ranks
// whose hosts sit at different zone depths get different depths (a ragged Topology, as in
// paper 001's Figure 2).
//
// Level names: level l is named by the first rank (in rank order) that has a zone there: that
// zone's property `level` (`<prop id="level" value="lan"/>`) if set, else "level<l>". A level
// where every rank has its host, not a zone, is named "node".
//
// Level links: for each level l, the route between the first pair of ranks (in rank order)
// whose deepest shared level is l: its summed latency and its narrowest link's bandwidth (the
// end-to-end point-to-point figures of the platform, not one link's; two ranks of one host: its
// loopback). Levels with no such pair have none.
//
// Pair links (Topology::set_pair_link): inside a cluster of level l, the routes between the
// first ranks of its member clusters of level l + 1, figured as above; set where they differ
// (a WAN whose site pairs have links of their own, as on gridcoll's explicit zones), none where
// they all agree. A cluster of more than 256 members is left to the level link. Cluster links
// (Topology::set_cluster_link): each cluster's route between its first two ranks that part
// below it, where these differ between the level's clusters (as karonis-grid's machines).
//
// A SimGrid Engine can exist only once per process and a platform can be loaded only once:
// the first call creates the Engine (logging only critical messages) and loads `xml_path`; later
// calls with the same `xml_path` reuse it, with another path they throw Error.
//
// Throws gridcoll::Error naming the file (and the line for a hostfile) on any bad input: a
// missing file, an unreadable platform, an unknown host, a malformed `host:N`, an empty hostfile.
Topology topology_from_simgrid(const std::string& xml_path, const std::string& hostfile_path);

}  // namespace gridcoll
