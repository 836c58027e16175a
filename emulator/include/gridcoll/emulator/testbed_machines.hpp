// A testbed spread over several machines, as MaxiNet (Mininet over GRE tunnels) and Distrinet
// (containers over VXLAN) spread theirs: the plan puts every namespace on a machine and carries
// every link whose two ends land on different machines through a VXLAN tunnel.
//
// - Hosts are split in description order into contiguous shares of about equal cores, so a site
//   stays on one machine where the shares allow; a router goes where most of its zone's members
//   are.
// - A link that crosses machines is built whole on its a-side machine (the veth or TAP pair, its
//   tc shaping or its delay line, both directions): its b end sits in that machine's tunnel
//   namespace `<prefix>t<k>`, bridged to a VXLAN device; on b's machine the tunnel's other end is
//   a VXLAN device in b's namespace with b's name and address (or in b's bridge). The tunnel is
//   plain Ethernet: shaping, routes and the fidelity check are those of one machine.
// - The management network: machine 0 (where the controller and mpirun run) has the bridge with
//   mpirun's address; every other machine a bridge of its own (`<prefix>mgmt<k>`) joined to it by
//   one tunnel.
// - Stand-ins (`--machines N`): a namespace `<prefix>m<k>` per machine is that machine's own
//   network stack (the tunnels' UDP ends live there), all joined by a bridge in `<prefix>u`,
//   addresses 198.19.<32 slot + 31>.<k + 1>/24 (inside the testbed's own block; nothing leaves
//   198.18.0.0/15). Real machines (`--machines A,B`) are reached by SSH; their tunnels run over
//   the network between them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"

namespace gridcoll::emulate {

constexpr int max_machines = 16;
constexpr int vxlan_port = 4789;

// How machine names become addresses, and which address is this machine's.
struct AddressLookup {
    std::function<std::string(const std::string&)> ipv4;  // a name or address -> IPv4; "" if none
    std::function<bool(const std::string&)> is_local;       // an IPv4 of this machine's
};
AddressLookup system_lookup();  // getaddrinfo and getifaddrs

// The machines a `--machines` value names:
//   "" or "1"      this machine alone (an empty list);
//   "N" (2..16)    N stand-ins, namespaces of this machine playing machines;
//   "A,B,..."      machines reached by SSH ([user@]host), names or IPv4 addresses; one of them is
//                  this machine (one of its own addresses), which becomes machine 0.
// Error naming the value when it is none of these. With `part` >= 0 (a machine bringing up its
// share for the controller), the list is taken in the controller's order and entry `part` is
// this machine.
std::vector<Machine> machines_from_spec(const std::string& spec, int slot, const AddressLookup& lookup, int part = -1);
// The list in the controller's order (this machine first), as a `--machines` value.
std::string machines_spec(const std::vector<Machine>& machines);
// Whether any machine is reached by SSH.
bool has_remote_machines(const TestbedPlan& plan);

// Puts the plan's namespaces on `machines` (two or more) and adds the tunnels, the machines'
// tunnel and management namespaces and, for stand-ins, their network stacks and switch.
void spread_over_machines(TestbedPlan& plan, std::vector<Machine> machines);

// The commands of the set-up that make the stand-ins' network (their namespaces exist): each
// stand-in's link to the switch, its address; nothing for real machines.
void add_standin_network(const TestbedPlan& plan, std::vector<Command>& out);
// The commands that make one end of tunnel t on `machine` (its a or b side): the VXLAN device
// made in the machine's own network stack, moved into namespace `into` and named `name`.
void add_tunnel_end(const TestbedPlan& plan, std::size_t t, bool a_side, int into, const std::string& name,
                    std::vector<Command>& out);

// The part of an up script, or of a command list, that runs on `machine`.
UpScript part_of(const UpScript& s, int machine);
std::vector<Command> part_of(const std::vector<Command>& v, int machine);

// `argv` as the controller (machine 0) runs it on `machine`: as it is on a local one (this
// machine or a stand-in), else through `ssh -o BatchMode=yes <machine> -- <quoted words>`.
std::vector<std::string> on_machine(const TestbedPlan& plan, int machine, const std::vector<std::string>& argv);

// Where the hosts run, for a person: "das-4x2 on 2 stand-in machines (m0: 4 hosts, m1: 4 hosts)".
std::string machines_summary(const TestbedPlan& plan);

}  // namespace gridcoll::emulate
