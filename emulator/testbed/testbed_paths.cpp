// path_spec: what the route between two hosts of a planned testbed promises — delay, rate,
// loss, hops, the class of its slowest link — walked hop by hop over the plan's nets and routes
// (what the fidelity check measures against; testbed_plan.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>

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

// The next hop of namespace `ns` towards `dest` by the plan's routes (the longest prefix that holds
// it); empty where none does (a network it is on).
std::string next_hop(const TestbedPlan& plan, int ns, const Cidr& dest) {
    std::string via;
    int best = -1;
    for (const Route& rt : plan.routes) {
        const Cidr c = parse_cidr(rt.dest);
        if (rt.ns == ns && c.len <= dest.len && c.len > best && c.contains(dest.net)) best = c.len, via = rt.via;
    }
    return via;
}

}  // namespace

std::vector<WindowRoute> route_windows(const TestbedPlan& plan) {
    std::map<int, std::string> host_of;  // host namespace -> host
    for (const auto& [host, n] : plan.host_ns) host_of[n] = host;
    std::vector<std::pair<std::string, std::string>> networks;  // CIDR, one host on it
    std::map<std::string, std::vector<std::string>> behind;     // gateway -> its hosts
    for (const Net& net : plan.nets)
        for (const NetMember& m : net.members)
            if (host_of.count(m.ns)) {
                if (networks.empty() || networks.back().first != net.cidr) networks.emplace_back(net.cidr, host_of[m.ns]);
                behind[next_hop(plan, m.ns, parse_cidr(plan.data_cidr))].push_back(host_of[m.ns]);
            }
    std::vector<WindowRoute> out;
    for (const auto& [gateway, hosts] : behind) {
        const std::string& from = hosts.front();
        for (const auto& [cidr, to] : networks) {
            const std::string via = next_hop(plan, plan.host_ns.at(from), parse_cidr(cidr));
            const PathSpec there = path_spec(plan, from, to);
            if (via.empty() || there.rate_Bps <= 0) continue;  // its own network, or unshaped
            const double rtt = there.delay_s + path_spec(plan, to, from).delay_s;
            const long window = std::max(16384L, static_cast<long>(std::ceil(2 * there.rate_Bps * rtt)));
            for (const std::string& h : hosts) out.push_back({plan.host_ns.at(h), cidr, via, window});
        }
    }
    return out;
}

}  // namespace gridcoll::emulate
