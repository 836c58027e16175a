// The emulated testbed of a platform description, as data: which network namespaces exist,
// which links join them and how each direction of each link is shaped, which addresses and
// routes every namespace gets. Built without touching the system (make_plan), turned into
// ip/tc command lists by testbed_commands.hpp, carried out by testbed_runner.hpp.
//
// Mapping (platforms/FORMAT.md "Networks"):
//   - every host is a namespace `<prefix>h-<host>` with its own UTS namespace and hostname;
//     all ranks placed on a host run in it (shared memory between them);
//   - every zone that needs an edge (a hub zone, or a non-root point-to-point zone) has a
//     router namespace `<prefix>r-<zone>`;
//   - switched / star / shared zones: a bridge `br0` in the zone's router; each member (a host,
//     or a child zone's router) is joined to it by a link of latency/2 and the zone's bandwidth
//     in each direction. `shared` adds one rate limit over everything entering the bridge (an
//     ifb device), so all members share the bandwidth;
//   - mesh / ring / explicit zones: a point-to-point link per pair the network names, with the
//     full latency; if the zone is not the root, its router reaches every member by a link of
//     latency/2 (the zone's edge);
//   - a gateway adds its overhead to the delay, and its bandwidth as a limit, of the link by
//     which its zone reaches the parent's network;
//   - data network: 198.18.<32*slot>.0/19; unshaped management network (one bridge in
//     `<prefix>mgmt`, one port per host): 198.19.<32*slot>.0/19. Routes: least latency, as the
//     description's routes.
// Each direction of a link is shaped by tc (tbf for the rate; netem for delay, jitter, loss and
// rate where the kernel has it) or, where it has no netem, by a gridcoll-delayline between two
// TAP devices. Delays at or below `native_delay_s` are left to the kernel's own path latency.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::emulate {

constexpr int max_slots = 8;  // testbeds side by side

struct Direction {
    double delay_s = 0;
    double jitter_s = 0;
    double loss = 0;
    double rate_Bps = 0;  // 0: not limited
    bool needs_delay_shaping(double native_delay_s) const {
        return delay_s > native_delay_s || jitter_s > 0 || loss > 0;
    }
};

// Infra: what a testbed over several machines adds (testbed_machines.hpp): a machine's tunnel
// and management namespaces, a stand-in machine's own network stack, the stand-ins' switch.
enum class NsKind { Host, Router, Mgmt, Infra };

struct Netns {
    std::string name;   // the ip netns name
    NsKind kind = NsKind::Host;
    std::string label;  // host name (also its hostname) or zone name
    int machine = 0;    // index in TestbedPlan::machines (0 on a testbed of one machine)
};

// How a link is made: a veth pair shaped with tbf (rate only), a veth pair shaped with netem,
// or two TAP devices joined by a gridcoll-delayline.
enum class Shaper { Tbf, Netem, DelayLine };
const char* shaper_name(Shaper s);

struct LinkEnd {
    int ns = -1;
    std::string ifname;
    std::string address;  // "198.18.0.5/30"; empty for a bridge port
};

struct Link {
    std::string klass;       // link class for the fidelity check, e.g. "das/wan mesh"
    std::string zone;        // the zone whose network this link belongs to
    LinkEnd a, b;            // a: member side; b: hub (bridge port) or the other member
    std::string bridge;      // non-empty: b is a port of this bridge in namespace b.ns
    Direction ab, ba;
    Shaper shaper = Shaper::Tbf;
    bool zone_edge = false;  // a member's link to its mesh / ring / explicit zone's edge router:
                             // a way in and out of the zone, never between its members
    // Where b's veth or TAP end is made and its direction (ba) shaped: b.ns, except on a link
    // that crosses machines, where it is the tunnel namespace of a's machine and b.ns holds the
    // far end of the tunnel under b's name and address (testbed_machines.hpp).
    int b_home = -1;
    int tunnel = -1;         // index in TestbedPlan::tunnels of a link that crosses machines
};

// A bridge in a router namespace: the hub of a switched / star / shared zone.
struct Segment {
    int ns = -1;
    std::string bridge = "br0";
    std::string cidr;        // subnet of the segment
    std::string address;     // the router's address on it ("198.18.0.1/24")
    std::string zone;
    double shared_rate_Bps = 0;  // shared: the medium's bandwidth (ifb + tbf); 0 otherwise
};

// A layer-3 network: a segment (bridge) or a point-to-point link, with the namespaces on it.
// Crossing it from member x to member y costs x's outgoing direction plus y's incoming one.
struct NetMember {
    int ns = -1;
    std::string address;  // without prefix length
    int link = -1;        // the link joining it (-1: the segment's own router)
    bool is_a = true;     // which end of `link` it is
};
struct Net {
    std::string cidr;
    int segment = -1;     // index in TestbedPlan::segments, or -1 for a point-to-point link
    std::vector<NetMember> members;
};

struct Route {
    int ns = -1;
    std::string dest;  // CIDR
    std::string via;   // next-hop address (no prefix length)
};

// A machine a testbed is spread over (testbed_machines.hpp). A stand-in is a network namespace
// of this machine playing one; any other machine is reached by SSH.
struct Machine {
    std::string name;         // "m1" for a stand-in; else the SSH destination as given
    std::string address;      // IPv4 on the network between the machines: the tunnels' ends
    bool local = true;        // this machine or a stand-in: its commands run here
    std::string underlay_ns;  // a stand-in's own network stack (namespace); "": the root namespace
    int tunnel_ns = -1;       // holds the near ends of the links that cross to other machines
    int mgmt_ns = -1;         // its part of the management network (machine 0: the plan's)
};

// A VXLAN tunnel carrying one link (or the management network) from machine a to machine b.
struct Tunnel {
    int vni = 0;
    int machine_a = 0, machine_b = 0;
    int link = -1;            // the link it carries; -1: machine b's management bridge
};

struct PlanOptions {
    std::string name;             // testbed name (default: the platform's name)
    int slot = 0;                 // 0 .. max_slots-1: address block and namespace prefix
    bool netem_available = false; // from probe_netem()
    std::string shaper = "auto";  // auto | netem | delayline
    double native_delay_s = 50e-6;
    std::string state_root = "/run/gridcoll";
    bool containers = false;      // hosts get PID and mount namespaces and cgroups (testbed_containers.hpp)
    std::vector<Machine> machines; // empty or one: this machine alone (machines_from_spec)
    std::string tcp_congestion = "cubic"; // the hosts' TCP congestion control ("": the machine's default)
};

struct TestbedPlan {
    std::string name;
    std::string platform_name;
    int slot = 0;
    std::string prefix;       // "gc<slot>-"
    std::string state_dir;    // <state_root>/<name>
    std::string data_cidr, mgmt_cidr;
    std::vector<Netns> ns;
    std::vector<Link> links;
    std::vector<Segment> segments;
    std::vector<Net> nets;
    std::vector<Route> routes;
    int mgmt_ns = -1;
    std::string mgmt_address; // the management bridge's address (mpirun runs there)
    std::vector<std::string> hosts;                  // platform hosts, description order
    std::map<std::string, int> host_ns;              // host -> namespace index
    std::map<std::string, std::string> data_address; // host -> first data address (no /len)
    std::map<std::string, std::string> mgmt_address_of; // host -> management address
    std::map<std::string, int> host_cores;
    std::vector<int> forwarding_ns;                  // namespaces that route (ip_forward=1)
    long tcp_buffer_max = 0;                         // bytes, for tcp_rmem / tcp_wmem max
    double longest_round_trip_s = 0;                 // between two leaves' first hosts (and inside a leaf)
    std::string tcp_congestion;                      // the hosts' congestion control ("": the machine's)
    long tcp_rto_min_us = 0;                         // the hosts' least TCP retransmission timeout (0: the kernel's)
    std::string delay_shaper;                        // what delays use: "netem", "delayline", "none needed"
    std::vector<std::string> notes;                  // decisions the user should see

    std::vector<Machine> machines;                   // at least one; [0] runs mpirun and the management bridge
    std::vector<Tunnel> tunnels;
    bool containers = false;                         // see PlanOptions
    double dilation = 1;                             // time dilation K (testbed_dilation.hpp): the plan's
                                                     // links are already K times slower
    bool cpu_cap = false;                            // dilated: hosts capped at cores / K (cpu_capped)
    bool window_routes = true;                       // false: route_windows gives none (TCP autotunes)
    std::string uts_file(const std::string& host) const { return state_dir + "/uts/" + host; }
    std::string host_dir(const std::string& host) const { return state_dir + "/hosts/" + host; }
    int machine_of_host(const std::string& host) const { return ns[static_cast<std::size_t>(host_ns.at(host))].machine; }
    bool spread() const { return machines.size() > 1; }
};

// Throws gridcoll::Error naming the zone / value when the description cannot be emulated
// (shaper forced to netem without netem, too many segments or links for the address block,
// a switched backbone, ...).
TestbedPlan make_plan(const platform::Platform& p, const PlanOptions& opt);

// One-way latency and bottleneck bandwidth between two hosts along the plan's routes (what the
// fidelity check expects to measure).
struct PathSpec {
    double delay_s = 0;       // sum of configured delays (unshaped ones included at their value)
    double rate_Bps = 0;      // min over the links (0: unlimited)
    double loss = 0;          // 1 - prod(1 - loss) one way
    int hops = 0;
    int delay_lines = 0;      // links on the way shaped by a delay line (a userspace forwarder each)
    double unshaped_delay_s = 0;  // the part of delay_s at or below the native floor: left to the
                                  // kernel's own latency, so a measurement may come in under it
    std::string klass;        // class of the link with the largest delay on the way
};
PathSpec path_spec(const TestbedPlan& plan, const std::string& from_host, const std::string& to_host);

// A route a host gets besides the plan's, towards another bridged network of hosts (a LAN), with
// the receive window (bytes) it advertises there: twice the bandwidth-delay product of its path
// from that network (the rate into the host x the round trip), at least 16 KiB; only where that
// path is rate-limited. Without it, TCP's autotuned window grows past what a link and its queue
// hold, and a delay line's drop-tail queue drops the excess, which the lossless platform does not
// (docs/design/emulated-windows.md). The next hop is the one the plan's routes already take
// there; no route for a network the host is on. Hosts behind the same gateway share the windows,
// worked out from one host behind it to one host of each network. Hosts joined to each other by
// point-to-point links (a leaf mesh or ring of nodes) get none towards those links.
struct WindowRoute {
    int ns = -1;
    std::string dest;  // the other network's CIDR
    std::string via;
    long window = 0;
};
std::vector<WindowRoute> route_windows(const TestbedPlan& plan);

// The ARP entries the testbed's namespaces may hold at once: every pair of members of each data
// network both ways, and every host with the management network's peers (Open MPI's daemons
// talk along a tree). The kernel keeps them in one table for all namespaces, whose default limit
// (net.ipv4.neigh.default.gc_thresh3 = 1024) a testbed of 128 hosts exceeds: new neighbours are
// then refused and Open MPI's connects fail ("connect() ... failed").
long neighbour_entries(const TestbedPlan& plan);

std::string format_duration(double seconds);  // "10ms", "20us", "1.5ms"
std::string format_rate(double Bps);          // "8Mbit"

}  // namespace gridcoll::emulate
