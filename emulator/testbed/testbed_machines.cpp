// A testbed spread over several machines: which machine each namespace goes to, the tunnels
// that join them, and the commands that make the tunnels (see testbed_machines.hpp).
#include "gridcoll/emulator/testbed_machines.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "gridcoll/algorithms/error.hpp"
#include "ipv4.hpp"

namespace gridcoll::emulate {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto comma = s.find(',', start);
        out.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

// The stand-ins' network: 198.19.<32 slot + 31>.0/24, the last /24 of the management block.
std::uint32_t standin_base(int slot) {
    return (198u << 24) | (19u << 16) | (static_cast<std::uint32_t>(32 * slot + 31) << 8);
}

std::vector<Machine> standins(int n, int slot) {
    std::vector<Machine> v;
    for (int k = 0; k < n; ++k) {
        Machine m;
        m.name = "m" + std::to_string(k);
        m.address = ipv4_to_string(standin_base(slot) + 1 + static_cast<std::uint32_t>(k));
        m.local = true;
        m.underlay_ns = "gc" + std::to_string(slot) + "-m" + std::to_string(k);
        v.push_back(m);
    }
    return v;
}

std::vector<Machine> ssh_machines(const std::string& spec, const AddressLookup& lookup, int part) {
    std::vector<Machine> v;
    int local = -1;
    for (const std::string& item : split_commas(spec)) {
        if (item.empty() || item.find_first_of(" \t'\"\\;") != std::string::npos)
            throw Error("--machines '" + spec + "': '" + item + "' is not a machine ([user@]host or an IPv4 address)");
        const std::string host = item.substr(item.find('@') + 1);
        Machine m;
        m.name = item;
        m.address = lookup.ipv4(host);
        if (m.address.empty()) throw Error("--machines '" + spec + "': cannot find an IPv4 address for '" + host + "'");
        for (const Machine& o : v)
            if (o.address == m.address) throw Error("--machines '" + spec + "': '" + item + "' is named twice (" + m.address + ")");
        m.local = part >= 0 ? static_cast<int>(v.size()) == part : lookup.is_local(m.address);
        if (m.local) {
            if (local >= 0) throw Error("--machines '" + spec + "': two entries are this machine");
            local = static_cast<int>(v.size());
        }
        v.push_back(m);
    }
    if (part >= 0) {
        if (local < 0) throw Error("--machines '" + spec + "': no machine " + std::to_string(part));
        return v;
    }
    if (local < 0)
        throw Error("--machines '" + spec + "': none of them is this machine; list this machine too (mpirun and the "
                    "management network run on it)");
    std::rotate(v.begin(), v.begin() + local, v.begin() + local + 1);  // this machine first
    return v;
}

}  // namespace

AddressLookup system_lookup() {
    AddressLookup l;
    l.ipv4 = [](const std::string& name) -> std::string {
        addrinfo hints{};
        hints.ai_family = AF_INET;
        addrinfo* res = nullptr;
        if (getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0 || !res) return "";
        char buf[INET_ADDRSTRLEN] = "";
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, buf, sizeof buf);
        freeaddrinfo(res);
        return buf;
    };
    l.is_local = [](const std::string& address) {
        ifaddrs* list = nullptr;
        if (getifaddrs(&list) != 0) return false;
        bool found = false;
        for (ifaddrs* a = list; a && !found; a = a->ifa_next) {
            if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
            char buf[INET_ADDRSTRLEN] = "";
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
            found = address == buf;
        }
        freeifaddrs(list);
        return found;
    };
    return l;
}

std::vector<Machine> machines_from_spec(const std::string& spec, int slot, const AddressLookup& lookup, int part) {
    if (spec.empty() || spec == "1") return {};
    if (spec.find_first_not_of("0123456789") == std::string::npos) {
        const long n = spec.size() > 3 ? 0 : std::stol(spec);
        if (n < 1 || n > max_machines)
            throw Error("--machines " + spec + ": stand-in machines must number 1 to " + std::to_string(max_machines));
        return standins(static_cast<int>(n), slot);
    }
    const auto v = ssh_machines(spec, lookup, part);
    if (static_cast<int>(v.size()) > max_machines)
        throw Error("--machines '" + spec + "': at most " + std::to_string(max_machines) + " machines");
    return v;
}

std::string machines_spec(const std::vector<Machine>& machines) {
    if (machines.size() < 2) return "";
    if (!machines[0].underlay_ns.empty()) return std::to_string(machines.size());
    std::string s;
    for (const Machine& m : machines) s += (s.empty() ? "" : ",") + m.name;
    return s;
}

bool has_remote_machines(const TestbedPlan& plan) {
    for (const Machine& m : plan.machines)
        if (!m.local) return true;
    return false;
}

namespace {

int add_infra(TestbedPlan& plan, const std::string& name, int machine) {
    plan.ns.push_back({name, NsKind::Infra, name, machine});
    return static_cast<int>(plan.ns.size()) - 1;
}

// Hosts in description order, cut into contiguous shares of about equal cores.
void place_hosts(TestbedPlan& plan) {
    const int m = static_cast<int>(plan.machines.size());
    long total = 0;
    for (const std::string& h : plan.hosts) total += std::max(1, plan.host_cores.at(h));
    long before = 0;
    for (const std::string& h : plan.hosts) {
        const long c = std::max(1, plan.host_cores.at(h));
        // The machine whose share holds this host's middle core.
        const int k = static_cast<int>(std::min<long>(m - 1, (2 * before + c) * m / (2 * total)));
        plan.ns[static_cast<std::size_t>(plan.host_ns.at(h))].machine = k;
        before += c;
    }
}

// A router goes where most of its members are (members come before their router in plan.ns).
void place_routers(TestbedPlan& plan) {
    for (std::size_t r = 0; r < plan.ns.size(); ++r) {
        if (plan.ns[r].kind != NsKind::Router) continue;
        std::map<int, int> count;
        for (const Link& l : plan.links)
            if (l.b.ns == static_cast<int>(r) && (!l.bridge.empty() || l.zone_edge))
                ++count[plan.ns[static_cast<std::size_t>(l.a.ns)].machine];
        int best = 0, most = 0;
        for (const auto& [machine, n] : count)
            if (n > most) best = machine, most = n;
        plan.ns[r].machine = best;
    }
}

int vni(const TestbedPlan& plan, int n) { return ((plan.slot + 1) << 16) | n; }

}  // namespace

void spread_over_machines(TestbedPlan& plan, std::vector<Machine> machines) {
    if (machines.size() < 2) return;
    plan.machines = std::move(machines);
    place_hosts(plan);
    place_routers(plan);
    for (int i = 0; i < static_cast<int>(plan.ns.size()); ++i)
        if (plan.ns[static_cast<std::size_t>(i)].kind == NsKind::Mgmt) plan.ns[static_cast<std::size_t>(i)].machine = 0;
    const int m = static_cast<int>(plan.machines.size());
    for (int k = 0; k < m; ++k) {
        Machine& mk = plan.machines[static_cast<std::size_t>(k)];
        if (!mk.underlay_ns.empty()) add_infra(plan, mk.underlay_ns, k);
        mk.tunnel_ns = add_infra(plan, plan.prefix + "t" + std::to_string(k), k);
        mk.mgmt_ns = k == 0 ? plan.mgmt_ns : add_infra(plan, plan.prefix + "mgmt" + std::to_string(k), k);
    }
    if (!plan.machines[0].underlay_ns.empty()) add_infra(plan, plan.prefix + "u", 0);
    for (std::size_t li = 0; li < plan.links.size(); ++li) {
        Link& l = plan.links[li];
        const int ma = plan.ns[static_cast<std::size_t>(l.a.ns)].machine, mb = plan.ns[static_cast<std::size_t>(l.b.ns)].machine;
        if (ma == mb) continue;
        l.tunnel = static_cast<int>(plan.tunnels.size());
        l.b_home = plan.machines[static_cast<std::size_t>(ma)].tunnel_ns;
        plan.tunnels.push_back({vni(plan, static_cast<int>(li) + 1), ma, mb, static_cast<int>(li)});
    }
    for (int k = 1; k < m; ++k) plan.tunnels.push_back({vni(plan, 0xF000 + k), 0, k, -1});
    int crossing = 0;
    for (const Tunnel& t : plan.tunnels) crossing += t.link >= 0;
    plan.notes.push_back(machines_summary(plan) + "; " + std::to_string(crossing) +
                         " link(s) cross machines through VXLAN tunnels (UDP " + std::to_string(vxlan_port) + ")");
}

void add_standin_network(const TestbedPlan& plan, std::vector<Command>& out) {
    if (!plan.spread() || plan.machines[0].underlay_ns.empty()) return;
    const std::string sw = plan.prefix + "u";
    out.push_back({{"ip", "-n", sw, "link", "add", "ub", "type", "bridge"}, 0});
    out.push_back({{"ip", "-n", sw, "link", "set", "ub", "up"}, 0});
    for (std::size_t k = 0; k < plan.machines.size(); ++k) {
        const Machine& m = plan.machines[k];
        const std::string port = "u" + std::to_string(k);
        const int mk = static_cast<int>(k);
        // MTU 1600: a tunnelled 1500-byte frame (50 bytes of VXLAN headers) is never fragmented.
        out.push_back({{"ip", "link", "add", "u0", "netns", m.underlay_ns, "mtu", "1600", "type", "veth", "peer", "name",
                        port, "netns", sw, "mtu", "1600"}, mk});
        out.push_back({{"ip", "-n", sw, "link", "set", port, "master", "ub"}, mk});
        out.push_back({{"ip", "-n", sw, "link", "set", port, "up"}, mk});
        out.push_back({{"ip", "-n", m.underlay_ns, "addr", "add", m.address + "/24", "dev", "u0"}, mk});
        out.push_back({{"ip", "-n", m.underlay_ns, "link", "set", "u0", "up"}, mk});
    }
}

void add_tunnel_end(const TestbedPlan& plan, std::size_t t, bool a_side, int into, const std::string& name,
                    std::vector<Command>& out) {
    const Tunnel& tn = plan.tunnels[t];
    const int here = a_side ? tn.machine_a : tn.machine_b, there = a_side ? tn.machine_b : tn.machine_a;
    const Machine& m = plan.machines[static_cast<std::size_t>(here)];
    const Machine& peer = plan.machines[static_cast<std::size_t>(there)];
    // Made in the machine's own network stack (where its UDP socket stays), under a name of the
    // testbed's own, then moved into the namespace and renamed.
    const std::string temp = plan.prefix + "x" + std::to_string(t);
    std::vector<std::string> in_stack{"ip"};
    if (!m.underlay_ns.empty()) in_stack.insert(in_stack.end(), {"-n", m.underlay_ns});
    std::vector<std::string> add = in_stack;
    add.insert(add.end(), {"link", "add", temp, "mtu", "1500", "type", "vxlan", "id", std::to_string(tn.vni), "local",
                           m.address, "remote", peer.address, "dstport", std::to_string(vxlan_port)});
    if (!m.underlay_ns.empty()) add.insert(add.end(), {"dev", "u0"});
    out.push_back({add, here});
    std::vector<std::string> move = in_stack;
    move.insert(move.end(), {"link", "set", temp, "netns", plan.ns[static_cast<std::size_t>(into)].name});
    out.push_back({move, here});
    out.push_back({{"ip", "-n", plan.ns[static_cast<std::size_t>(into)].name, "link", "set", temp, "name", name}, here});
}

UpScript part_of(const UpScript& s, int machine) {
    UpScript p;
    p.setup = part_of(s.setup, machine);
    p.routes = part_of(s.routes, machine);
    for (const Daemon& d : s.daemons)
        if (d.machine == machine) p.daemons.push_back(d);
    for (const Daemon& d : s.hosts)
        if (d.machine == machine) p.hosts.push_back(d);
    return p;
}

std::vector<Command> part_of(const std::vector<Command>& v, int machine) {
    std::vector<Command> out;
    for (const Command& c : v)
        if (c.machine == machine) out.push_back(c);
    return out;
}

std::vector<std::string> on_machine(const TestbedPlan& plan, int machine, const std::vector<std::string>& argv) {
    if (!plan.spread() || plan.machines[static_cast<std::size_t>(machine)].local) return argv;
    // ssh joins its words with spaces for the remote shell: quote each so that it parses back.
    return {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", plan.machines[static_cast<std::size_t>(machine)].name,
            "--", Command{argv}.text()};
}

std::string machines_summary(const TestbedPlan& plan) {
    if (!plan.spread()) return "all on this machine";
    // Shares are contiguous in description order: the first and last host say which.
    std::vector<std::vector<std::string>> hosts(plan.machines.size());
    for (const std::string& h : plan.hosts) hosts[static_cast<std::size_t>(plan.machine_of_host(h))].push_back(h);
    const bool standin = !plan.machines[0].underlay_ns.empty();
    std::string s = "hosts on " + std::to_string(plan.machines.size()) + (standin ? " stand-in machines (" : " machines (");
    for (std::size_t k = 0; k < plan.machines.size(); ++k) {
        const auto& v = hosts[k];
        s += (k ? ", " : "") + plan.machines[k].name + (standin ? "" : " " + plan.machines[k].address) + ": " +
             std::to_string(v.size()) + " hosts";
        if (!v.empty()) s += " " + v.front() + (v.size() > 1 ? ".." + v.back() : "");
    }
    return s + ")";
}

}  // namespace gridcoll::emulate
