// path_spec: what the route between two hosts of a planned testbed promises — delay, rate,
// loss, hops, the class of its slowest link — walked hop by hop over the plan's nets and routes
// (what the fidelity check measures against; testbed_plan.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"
#include "ipv4.hpp"

namespace gridcoll::emulate {

PathSpec path_spec(const TestbedPlan& plan, const std::string& from, const std::string& to) {
    PathSpec ps;
    const auto fi = plan.host_ns.find(from), ti = plan.host_ns.find(to);
    if (fi == plan.host_ns.end() || ti == plan.host_ns.end())
        throw Error("no host '" + (fi == plan.host_ns.end() ? from : to) + "' in testbed " + plan.name);
    const std::uint32_t target = parse_ipv4(plan.data_address.at(to));
    const int target_ns = ti->second;
    int cur = fi->second;
    double survive = 1;
    double ps_top = -1;
    auto cross = [&](const Net& net, const NetMember& x, const NetMember& y) {
        const Direction *out = nullptr, *in = nullptr;
        if (x.link >= 0) {
            const Link& l = plan.links[static_cast<std::size_t>(x.link)];
            out = x.is_a ? &l.ab : &l.ba;
            ps.delay_lines += l.shaper == Shaper::DelayLine;
        }
        if (net.segment >= 0 && y.link >= 0) in = &plan.links[static_cast<std::size_t>(y.link)].ba;
        double top = -1;
        for (const Direction* d : {out, in}) {
            if (!d) continue;
            if (d->delay_s > top && x.link >= 0) {
                top = d->delay_s;
                if (d->delay_s >= ps_top) ps_top = d->delay_s, ps.klass = plan.links[static_cast<std::size_t>(x.link)].klass;
            }
            ps.delay_s += d->delay_s;
            const int via = d == out ? x.link : y.link;
            if (via >= 0 && plan.links[static_cast<std::size_t>(via)].shaper == Shaper::Tbf) ps.unshaped_delay_s += d->delay_s;
            survive *= 1 - d->loss;
            if (d->rate_Bps > 0) ps.rate_Bps = ps.rate_Bps > 0 ? std::min(ps.rate_Bps, d->rate_Bps) : d->rate_Bps;
        }
        if (net.segment >= 0) {
            const double shared = plan.segments[static_cast<std::size_t>(net.segment)].shared_rate_Bps;
            if (shared > 0 && x.link >= 0) ps.rate_Bps = ps.rate_Bps > 0 ? std::min(ps.rate_Bps, shared) : shared;
        }
        ++ps.hops;
    };
    for (int guard = 0; cur != target_ns; ++guard) {
        if (guard > 64) throw Error("routing loop from " + from + " to " + to + " in testbed " + plan.name);
        // Directly attached to the target?
        const Net* hop_net = nullptr;
        const NetMember* hop_x = nullptr;
        const NetMember* hop_y = nullptr;
        for (const Net& net : plan.nets) {
            const NetMember* x = nullptr;
            const NetMember* y = nullptr;
            for (const NetMember& m : net.members) {
                if (m.ns == cur) x = &m;
                if (m.ns == target_ns && parse_ipv4(m.address) == target) y = &m;
            }
            if (x && y) hop_net = &net, hop_x = x, hop_y = y;
        }
        if (!hop_net) {
            // Longest-prefix route.
            const Route* best = nullptr;
            int best_len = -1;
            for (const Route& r : plan.routes) {
                if (r.ns != cur) continue;
                const Cidr c = parse_cidr(r.dest);
                if (c.contains(target) && c.len > best_len) best = &r, best_len = c.len;
            }
            if (!best) throw Error("no route from " + plan.ns[static_cast<std::size_t>(cur)].name + " to " + to);
            const std::uint32_t via = parse_ipv4(best->via);
            for (const Net& net : plan.nets) {
                const NetMember* x = nullptr;
                const NetMember* y = nullptr;
                for (const NetMember& m : net.members) {
                    if (m.ns == cur) x = &m;
                    if (parse_ipv4(m.address) == via) y = &m;
                }
                if (x && y) hop_net = &net, hop_x = x, hop_y = y;
            }
            if (!hop_net) throw Error("next hop " + best->via + " is not a neighbour of " + plan.ns[static_cast<std::size_t>(cur)].name);
        }
        cross(*hop_net, *hop_x, *hop_y);
        cur = hop_y->ns;
    }
    ps.loss = 1 - survive;
    return ps;
}

long neighbour_entries(const TestbedPlan& plan) {
    long n = 0;
    for (const Net& net : plan.nets) {
        const long m = static_cast<long>(net.members.size());
        n += m * (m - 1);
    }
    const long hosts = static_cast<long>(plan.hosts.size());
    constexpr long mgmt_peers = 64;  // a daemon's parent and children in Open MPI's routing tree, mpirun
    return n + 2 * hosts * std::min(hosts, mgmt_peers);
}

namespace {

// Each namespace's routes, parsed once.
using RouteTable = std::map<int, std::vector<std::pair<Cidr, std::string>>>;
RouteTable route_table(const TestbedPlan& plan) {
    RouteTable t;
    for (const Route& rt : plan.routes) t[rt.ns].emplace_back(parse_cidr(rt.dest), rt.via);
    return t;
}

// The next hop of namespace `ns` towards `dest` by the plan's routes (the longest prefix that holds
// it); empty where none does.
std::string next_hop(const RouteTable& table, int ns, const Cidr& dest) {
    std::string via;
    int best = -1;
    if (const auto it = table.find(ns); it != table.end())
        for (const auto& [c, hop] : it->second)
            if (c.len <= dest.len && c.len > best && c.contains(dest.net)) best = c.len, via = hop;
    return via;
}

// The bridged networks with hosts on them: CIDR -> one host on it.
std::map<std::string, std::string> host_networks(const TestbedPlan& plan, const std::map<int, std::string>& host_of) {
    std::map<std::string, std::string> out;
    for (const Net& net : plan.nets)
        for (const NetMember& m : net.members)
            if (net.segment >= 0 && host_of.count(m.ns) && parse_cidr(net.cidr).contains(parse_ipv4(m.address)))
                out.emplace(net.cidr, host_of.at(m.ns));
    return out;
}

// The receive window of `from` for data from `to`: twice the product of the rate into `from`
// and the round trip, at least 16 KiB; 0 where that path has no rate limit.
long window_between(const TestbedPlan& plan, const std::string& from, const std::string& to) {
    const PathSpec there = path_spec(plan, from, to), back = path_spec(plan, to, from);
    if (back.rate_Bps <= 0) return 0;
    return std::max(16384L, static_cast<long>(std::ceil(2 * back.rate_Bps * (there.delay_s + back.delay_s))));
}

}  // namespace

std::vector<WindowRoute> route_windows(const TestbedPlan& plan) {
    if (!plan.window_routes) return {};
    std::map<int, std::string> host_of;  // host namespace -> host
    for (const auto& [host, n] : plan.host_ns) host_of[n] = host;
    const RouteTable table = route_table(plan);
    const auto networks = host_networks(plan, host_of);
    std::map<int, std::set<std::string>> own;          // host namespace -> the networks it is on
    std::map<std::string, std::set<int>> behind;       // gateway -> the hosts behind it
    for (const Net& net : plan.nets)
        for (const NetMember& m : net.members)
            if (host_of.count(m.ns)) own[m.ns].insert(net.cidr);
    for (const auto& [n, host] : host_of) behind[next_hop(table, n, parse_cidr(plan.data_cidr))].insert(n);
    std::vector<WindowRoute> out;
    for (const auto& [gateway, hosts] : behind) {
        const std::string& from = host_of.at(*hosts.begin());  // the values of one host behind the gateway
        for (const auto& [cidr, to] : networks) {
            const long window = window_between(plan, from, to);
            if (window == 0) continue;
            for (int n : hosts) {
                const std::string via = next_hop(table, n, parse_cidr(cidr));
                if (!own[n].count(cidr) && !via.empty()) out.push_back({n, cidr, via, window});
            }
        }
    }
    return out;
}

}  // namespace gridcoll::emulate
