// Platform descriptions: a cluster of clusters described once (a TOML file, see
// platforms/FORMAT.md) and used everywhere — to generate SimGrid XML and hostfiles, to give the
// algorithms their Topology, and (later) to build the emulated testbed and the model parameters.
//
// The description is a tree of zones. A zone is either a leaf cluster of identical nodes
// (each with `cores` cores sharing memory) or a group of child zones. Every zone names the
// interconnect joining its members (its children, or its nodes for a leaf: Zone::network) and,
// optionally, a gateway: the node through which it reaches its parent's network, with a
// forwarding cost.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::platform {

// Where a value came from, for error messages: "file:line:column".
struct SourceLoc {
    std::string file;
    int line = 0;
    int column = 0;
    std::string str() const;
};

struct LinkSpec {
    double latency_s = 0;       // one way
    double bandwidth_Bps = 0;   // bytes per second (> 0)
    double loss = 0;            // packet loss probability in [0, 1) — emulation only
    double jitter_s = 0;        // delay variation — emulation only
    SourceLoc loc;
};

// How a zone's members are joined: the zone's network (TOML key `network`; `topology` is the
// older spelling, still read). Not to be confused with gridcoll::Topology, the multilevel rank
// view built from a placed platform (topology() below).
//   switched: each member has its own link (`link`) to a switch; `backbone` (optional) is the
//             switch's capacity shared by all traffic through it.      route: [l_a, (bb), l_b]
//   shared:   one medium (`link`) shared by all members (a hub / 10 Mb Ethernet segment).
//   star:     each member has its own link to a core router (WAN).  Same routes as switched.
//   mesh:     one link (`link`) between every pair of members.
//   ring:     one link between neighbours; routes take the shorter way round.
//   explicit: the links listed in `links`; routes take the path of least latency.
enum class Interconnect { Switched, Shared, Star, Mesh, Ring, Explicit };

struct ExplicitLink {
    std::string a, b;  // member names
    LinkSpec link;
};

// The node through which a zone reaches its parent's network (paper 004's gateway). Messages
// leaving or entering the zone are forwarded by it at a cost: `overhead_s` per message and at
// most `bandwidth_Bps` (0 = not limiting).
struct Gateway {
    std::string node;  // a node of the zone (host name), or empty for a dedicated router
    double overhead_s = 0;
    double bandwidth_Bps = 0;
    SourceLoc loc;
};

struct Zone {
    std::string name;   // unique in the platform
    std::string level;  // what this zone is: "site", "machine", "cluster", ... (the level's name)
    Interconnect network = Interconnect::Switched;
    LinkSpec link;                    // see Interconnect
    std::optional<LinkSpec> backbone; // switched only
    std::vector<ExplicitLink> links;  // explicit only
    std::optional<Gateway> gateway;
    std::vector<Zone> children;       // a group of zones ...
    // ... or a leaf cluster of identical nodes, named <name>-0 .. <name>-<nodes-1>:
    int nodes = 0;
    int cores = 1;
    double speed_flops = 1e9;         // per core
    LinkSpec core_link{15e-9, 10e9, 0, 0, {}};  // between processes of one node (shared memory)
    SourceLoc loc;

    bool is_leaf() const { return children.empty(); }
};

enum class PlacementPolicy { Block, RoundRobin, File };

struct Placement {
    PlacementPolicy policy = PlacementPolicy::Block;
    int ranks = 0;                   // 0 = one per core
    bool oversubscribe = false;      // more ranks than cores allowed
    std::vector<std::string> hosts;  // File: the host of each rank
    SourceLoc loc;
};

struct Platform {
    std::string name;
    std::string description;
    std::string source;  // citation; which numbers are assumptions is said in the file
    Zone root;
    Placement placement;
    std::string file;    // where it was loaded from
};

// Loads and validates a description. Throws gridcoll::Error with "file:line:column: key: what"
// for any malformed or inconsistent input (unknown key, bad unit, negative bandwidth, a link to
// a member that does not exist, more ranks than cores without oversubscription, ...).
Platform load_platform(const std::string& path);
Platform parse_platform(const std::string& toml_text, const std::string& origin);

// Every host in depth-first order, with its zone path (root first) and core count.
struct Host {
    std::string name;
    std::vector<const Zone*> path;  // root .. leaf zone
    int cores = 1;
};
std::vector<Host> hosts(const Platform& p);

// The host of each rank under the platform's placement (or `ranks` ranks if > 0).
std::vector<std::string> place_ranks(const Platform& p, int ranks = 0);

// The multilevel Topology of the placed ranks: one level per zone depth plus the node level.
Topology topology(const Platform& p, int ranks = 0);

// Units (FORMAT.md "Units"): a number with a unit and nothing else, e.g. parse_time("20us") =
// 2e-5 s, parse_bandwidth("1MB/s") = 1e6 B/s, parse_bandwidth("100Mbps") = 12.5e6 B/s,
// parse_speed("1Gf") = 1e9 flop/s. The sign is kept (range checks are the loader's); a bare
// number, an unknown unit or anything else throws Error naming the text.
double parse_time(const std::string& text);       // seconds
double parse_bandwidth(const std::string& text);  // bytes per second
double parse_speed(const std::string& text);      // flop/s

// Generators.
std::string simgrid_xml(const Platform& p);          // SimGrid platform, version 4.1
std::string hostfile(const Platform& p, int ranks = 0);  // one line per rank (smpirun/mpirun)

}  // namespace gridcoll::platform
