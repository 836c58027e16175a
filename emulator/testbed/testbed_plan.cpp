// make_plan: a platform description -> namespaces, links, shaping, addresses and routes.
// See testbed_plan.hpp for the mapping.
#include "gridcoll/emulator/testbed_plan.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <queue>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"
#include "ipv4.hpp"

namespace gridcoll::emulate {

using platform::Interconnect;
using platform::Zone;

const char* shaper_name(Shaper s) {
    switch (s) {
    case Shaper::Tbf: return "tbf";
    case Shaper::Netem: return "netem";
    case Shaper::DelayLine: return "delayline";
    }
    return "?";
}

std::string format_duration(double s) {
    char buf[64];
    if (s == 0) return "0";
    if (s >= 1) std::snprintf(buf, sizeof buf, "%.6gs", s);
    else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.6gms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.6gus", s * 1e6);
    return buf;
}

std::string format_rate(double Bps) {
    char buf[64];
    const double bits = Bps * 8;
    if (bits >= 1e9) std::snprintf(buf, sizeof buf, "%.6gGbit", bits / 1e9);
    else if (bits >= 1e6) std::snprintf(buf, sizeof buf, "%.6gMbit", bits / 1e6);
    else if (bits >= 1e3) std::snprintf(buf, sizeof buf, "%.6gkbit", bits / 1e3);
    else std::snprintf(buf, sizeof buf, "%.6gbit", bits);
    return buf;
}

namespace {

// Address blocks of a slot: data 198.18.<32 slot>.0/19 — /24 segments in its first 24 /24s,
// /30 point-to-point links in the last 8; management 198.19.<32 slot>.0/19.
constexpr int max_segments = 24;
constexpr int max_p2p = 8 * 64;
constexpr int max_mgmt_hosts = 7934;  // below the stand-in machines' last /24 (testbed_machines.hpp)

struct Builder {
    const platform::Platform& p;
    const PlanOptions& opt;
    TestbedPlan plan;
    std::uint32_t data_base = 0, mgmt_base = 0;
    int segments = 0, p2p = 0;
    std::map<const Zone*, std::vector<std::string>> leaf_hosts;
    std::map<std::string, int> host_cores;
    int links_below_floor = 0;
    double floor_example = 0;

    Builder(const platform::Platform& pl, const PlanOptions& o) : p(pl), opt(o) {}

    int add_ns(NsKind kind, const std::string& label) {
        const char* tag = kind == NsKind::Host ? "h-" : kind == NsKind::Router ? "r-" : "";
        plan.ns.push_back({plan.prefix + tag + label, kind, label});
        return static_cast<int>(plan.ns.size()) - 1;
    }

    Shaper choose_shaper(const Direction& ab, const Direction& ba, const std::string& zone) {
        const bool needs = ab.needs_delay_shaping(opt.native_delay_s) || ba.needs_delay_shaping(opt.native_delay_s);
        for (const Direction* d : {&ab, &ba})
            if (!needs && d->delay_s > 0) {
                ++links_below_floor;
                floor_example = std::max(floor_example, d->delay_s);
            }
        if (!needs) return Shaper::Tbf;
        if (opt.shaper == "netem") {
            if (!opt.netem_available)
                throw Error("zone '" + zone + "': delay/jitter/loss need netem (--shaper netem), but this kernel has no "
                            "sch_netem; use --shaper auto or delayline");
            return Shaper::Netem;
        }
        if (opt.shaper == "delayline") return Shaper::DelayLine;
        return opt.netem_available ? Shaper::Netem : Shaper::DelayLine;
    }

    std::string next_p2p(std::string& a_addr, std::string& b_addr) {
        if (p2p >= max_p2p)
            throw Error("platform '" + p.name + "' needs more than " + std::to_string(max_p2p) +
                        " point-to-point links, more than one testbed's address block holds");
        const std::uint32_t net = data_base + (24u << 8) + static_cast<std::uint32_t>(p2p) * 4u;
        ++p2p;
        a_addr = ipv4_to_string(net + 1);
        b_addr = ipv4_to_string(net + 2);
        return ipv4_to_string(net) + "/30";
    }

    // A link between `a` (member side) and `b`; b is a port of `segment`'s bridge if >= 0.
    int add_link(int a, int b, int segment, const Direction& ab, const Direction& ba, const std::string& zone,
                 const std::string& klass) {
        Link l;
        const int id = static_cast<int>(plan.links.size());
        l.klass = klass;
        l.zone = zone;
        l.a = {a, "l" + std::to_string(id) + "a", ""};
        l.b = {b, "l" + std::to_string(id) + "b", ""};
        l.b_home = b;
        l.ab = ab;
        l.ba = ba;
        l.shaper = choose_shaper(ab, ba, zone);
        if (segment >= 0) {
            Segment& s = plan.segments[static_cast<std::size_t>(segment)];
            l.bridge = s.bridge;
            Net& net = plan.nets[static_cast<std::size_t>(seg_net[segment])];
            const Cidr c = parse_cidr(s.cidr);
            const int host_part = static_cast<int>(net.members.size()) + 1;  // router is .1
            if (host_part > 253)
                throw Error("zone '" + zone + "' has more than 252 members on one network, more than a testbed segment holds");
            const std::string addr = ipv4_to_string(c.net + static_cast<std::uint32_t>(host_part));
            l.a.address = addr + "/24";
            net.members.push_back({a, addr, id, true});
        } else {
            std::string aa, ba_addr;
            const std::string cidr = next_p2p(aa, ba_addr);
            l.a.address = aa + "/30";
            l.b.address = ba_addr + "/30";
            Net net;
            net.cidr = cidr;
            net.members.push_back({a, aa, id, true});
            net.members.push_back({b, ba_addr, id, false});
            plan.nets.push_back(std::move(net));
        }
        plan.links.push_back(std::move(l));
        return id;
    }

    std::vector<int> seg_net;  // segment -> its Net

    int add_segment(int router, const std::string& zone, double shared_rate) {
        if (segments >= max_segments)
            throw Error("platform '" + p.name + "' has more than " + std::to_string(max_segments) +
                        " switched/star/shared zones, more than one testbed's address block holds");
        const std::uint32_t net = data_base + (static_cast<std::uint32_t>(segments) << 8);
        ++segments;
        Segment s;
        s.ns = router;
        s.cidr = ipv4_to_string(net) + "/24";
        s.address = ipv4_to_string(net + 1) + "/24";
        s.zone = zone;
        s.shared_rate_Bps = shared_rate;
        plan.segments.push_back(s);
        Net n;
        n.cidr = s.cidr;
        n.segment = static_cast<int>(plan.segments.size()) - 1;
        n.members.push_back({router, ipv4_to_string(net + 1), -1, true});
        plan.nets.push_back(std::move(n));
        seg_net.push_back(static_cast<int>(plan.nets.size()) - 1);
        return static_cast<int>(plan.segments.size()) - 1;
    }

    // One direction of a member's link to its zone's edge: half the member-to-member latency and
    // jitter, loss split so that two edges lose `loss`, the zone's bandwidth.
    static Direction edge_direction(const platform::LinkSpec& l, bool with_rate) {
        Direction d;
        d.delay_s = l.latency_s / 2;
        d.jitter_s = l.jitter_s / 2;
        d.loss = l.loss > 0 ? 1 - std::sqrt(1 - l.loss) : 0;
        d.rate_Bps = with_rate ? l.bandwidth_Bps : 0;
        return d;
    }
    static Direction full_direction(const platform::LinkSpec& l) {
        return {l.latency_s, l.jitter_s, l.loss, l.bandwidth_Bps};
    }

    // A gateway's cost on the link by which its zone leaves (member -> hub) and enters.
    static void apply_gateway(const Zone& member, Direction& out, Direction& in) {
        if (!member.gateway) return;
        for (Direction* d : {&out, &in}) {
            d->delay_s += member.gateway->overhead_s;
            if (member.gateway->bandwidth_Bps > 0)
                d->rate_Bps = d->rate_Bps > 0 ? std::min(d->rate_Bps, member.gateway->bandwidth_Bps)
                                              : member.gateway->bandwidth_Bps;
        }
    }

    static bool is_hub(Interconnect t) {
        return t == Interconnect::Switched || t == Interconnect::Star || t == Interconnect::Shared;
    }
    static const char* interconnect_name(Interconnect t) {
        switch (t) {
        case Interconnect::Switched: return "switched";
        case Interconnect::Shared: return "shared";
        case Interconnect::Star: return "star";
        case Interconnect::Mesh: return "mesh";
        case Interconnect::Ring: return "ring";
        case Interconnect::Explicit: return "explicit";
        }
        return "?";
    }

    // Builds zone z and returns the namespace by which it is reached from its parent's network
    // (its router), or -1 for a root without one.
    int build_zone(const Zone& z, bool root) {
        std::vector<int> members;
        std::vector<std::string> member_names;
        std::vector<const Zone*> member_zones;
        if (z.is_leaf()) {
            for (const std::string& h : leaf_hosts[&z]) {
                const int ns = add_ns(NsKind::Host, h);
                plan.host_ns[h] = ns;
                members.push_back(ns);
                member_names.push_back(h);
                member_zones.push_back(nullptr);
            }
        } else {
            for (const Zone& c : z.children) {
                members.push_back(build_zone(c, false));
                member_names.push_back(c.name);
                member_zones.push_back(&c);
            }
        }
        const std::string klass = z.level + " " + interconnect_name(z.network) + " (" + z.name + ")";
        if (is_hub(z.network)) {
            const int router = add_ns(NsKind::Router, z.name);
            plan.forwarding_ns.push_back(router);
            double shared = 0;
            if (z.network == Interconnect::Shared) shared = z.link.bandwidth_Bps;
            if (z.backbone) shared = z.backbone->bandwidth_Bps;
            const int seg = add_segment(router, z.name, shared);
            const bool per_member_rate = z.network != Interconnect::Shared;
            for (std::size_t i = 0; i < members.size(); ++i) {
                Direction out = edge_direction(z.link, per_member_rate), in = edge_direction(z.link, per_member_rate);
                if (member_zones[i]) apply_gateway(*member_zones[i], out, in);
                add_link(members[i], router, seg, out, in, z.name, klass);
            }
            return router;
        }
        // Point-to-point zones.
        auto pair_link = [&](std::size_t i, std::size_t j, const platform::LinkSpec& spec) {
            Direction ab = full_direction(spec), ba = ab;
            // A message between two member zones leaves one and enters the other.
            for (std::size_t m : {i, j})
                if (member_zones[m]) apply_gateway(*member_zones[m], ab, ba);
            add_link(members[i], members[j], -1, ab, ba, z.name, klass);
        };
        const std::size_t n = members.size();
        if (z.network == Interconnect::Mesh) {
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = i + 1; j < n; ++j) pair_link(i, j, z.link);
        } else if (z.network == Interconnect::Ring) {
            for (std::size_t i = 0; i + 1 < n; ++i) pair_link(i, i + 1, z.link);
            if (n > 2) pair_link(n - 1, 0, z.link);
        } else {
            for (const auto& el : z.links) {
                const auto ia = std::find(member_names.begin(), member_names.end(), el.a);
                const auto ib = std::find(member_names.begin(), member_names.end(), el.b);
                if (ia == member_names.end() || ib == member_names.end())
                    throw Error(el.link.loc.str() + ": zone '" + z.name + "': link " + el.a + " - " + el.b +
                                " names no member");
                pair_link(static_cast<std::size_t>(ia - member_names.begin()),
                          static_cast<std::size_t>(ib - member_names.begin()), el.link);
            }
        }
        for (std::size_t i = 0; i < n; ++i)
            if (plan.ns[static_cast<std::size_t>(members[i])].kind == NsKind::Host) plan.forwarding_ns.push_back(members[i]);
        if (root) return -1;
        // An explicit zone without `link` has unlimited edges of no latency (as the SimGrid XML).
        const bool edge_rate = z.link.bandwidth_Bps > 0;
        const int router = add_ns(NsKind::Router, z.name);
        plan.forwarding_ns.push_back(router);
        for (std::size_t i = 0; i < n; ++i) {
            Direction out = edge_direction(z.link, edge_rate), in = edge_direction(z.link, edge_rate);
            if (member_zones[i]) apply_gateway(*member_zones[i], out, in);
            const int id = add_link(members[i], router, -1, out, in, z.name, z.level + " edge (" + z.name + ")");
            plan.links[static_cast<std::size_t>(id)].zone_edge = true;
        }
        return router;
    }

    void build_mgmt() {
        plan.mgmt_ns = add_ns(NsKind::Mgmt, "mgmt");
        plan.ns[static_cast<std::size_t>(plan.mgmt_ns)].name = plan.prefix + "mgmt";
        plan.mgmt_address = ipv4_to_string(mgmt_base + 1);
        if (static_cast<int>(plan.hosts.size()) > max_mgmt_hosts)
            throw Error("platform '" + p.name + "' has more than " + std::to_string(max_mgmt_hosts) + " hosts");
        for (std::size_t i = 0; i < plan.hosts.size(); ++i)
            plan.mgmt_address_of[plan.hosts[i]] = ipv4_to_string(mgmt_base + 2 + static_cast<std::uint32_t>(i));
    }

    void compute_routes();
    void size_tcp_buffers();
};

// Least-latency routes (Dijkstra over namespaces; crossing a network costs the sender's outgoing
// delay plus the receiver's incoming delay, plus a tiny per-hop cost so that ties prefer fewer
// hops). Each namespace gets one route for the whole data block via its most used next hop and
// a route per network that goes elsewhere.
void Builder::compute_routes() {
    const std::size_t N = plan.ns.size();
    struct Edge { int to; double cost; int net; std::string via; };
    std::vector<std::vector<Edge>> adj(N);
    auto dir_out = [&](const NetMember& m) -> double {
        if (m.link < 0) return 0;
        const Link& l = plan.links[static_cast<std::size_t>(m.link)];
        return m.is_a ? l.ab.delay_s : l.ba.delay_s;
    };
    auto dir_in = [&](const Net& net, const NetMember& m) -> double {
        if (net.segment < 0 || m.link < 0) return 0;
        return plan.links[static_cast<std::size_t>(m.link)].ba.delay_s;
    };
    // Entering a zone by its edge costs a large constant: every way into the zone pays it once,
    // so it never changes which way in is chosen, but a member never reaches another member of
    // its own zone through the edge router (SimGrid's routes stay inside the zone).
    constexpr double edge_entry = 1e3;
    for (std::size_t ni = 0; ni < plan.nets.size(); ++ni) {
        const Net& net = plan.nets[ni];
        for (const NetMember& x : net.members)
            for (const NetMember& y : net.members)
                if (x.ns != y.ns) {
                    double cost = dir_out(x) + dir_in(net, y) + 1e-12;
                    if (x.link >= 0 && !x.is_a && plan.links[static_cast<std::size_t>(x.link)].zone_edge) cost += edge_entry;
                    adj[static_cast<std::size_t>(x.ns)].push_back({y.ns, cost, static_cast<int>(ni), y.address});
                }
    }
    std::vector<std::vector<int>> nets_of(N);
    for (std::size_t ni = 0; ni < plan.nets.size(); ++ni)
        for (const NetMember& m : plan.nets[ni].members) nets_of[static_cast<std::size_t>(m.ns)].push_back(static_cast<int>(ni));

    for (std::size_t s = 0; s < N; ++s) {
        if (nets_of[s].empty()) continue;
        std::vector<double> dist(N, std::numeric_limits<double>::infinity());
        std::vector<std::string> first_via(N);
        using QE = std::pair<double, int>;
        std::priority_queue<QE, std::vector<QE>, std::greater<>> q;
        dist[s] = 0;
        q.push({0, static_cast<int>(s)});
        while (!q.empty()) {
            auto [d, u] = q.top();
            q.pop();
            if (d > dist[static_cast<std::size_t>(u)]) continue;
            for (const Edge& e : adj[static_cast<std::size_t>(u)]) {
                const double nd = d + e.cost;
                if (nd < dist[static_cast<std::size_t>(e.to)]) {
                    dist[static_cast<std::size_t>(e.to)] = nd;
                    first_via[static_cast<std::size_t>(e.to)] =
                        static_cast<std::size_t>(u) == s ? e.via : first_via[static_cast<std::size_t>(u)];
                    q.push({nd, e.to});
                }
            }
        }
        std::vector<std::pair<std::string, std::string>> wanted;  // dest cidr, via
        for (std::size_t ni = 0; ni < plan.nets.size(); ++ni) {
            if (std::find(nets_of[s].begin(), nets_of[s].end(), static_cast<int>(ni)) != nets_of[s].end()) continue;
            int best = -1;
            for (const NetMember& m : plan.nets[ni].members)
                if (best < 0 || dist[static_cast<std::size_t>(m.ns)] < dist[static_cast<std::size_t>(best)]) best = m.ns;
            if (best < 0 || !std::isfinite(dist[static_cast<std::size_t>(best)]))
                throw Error("platform '" + p.name + "': network " + plan.nets[ni].cidr + " cannot be reached from " +
                            plan.ns[s].name + " (a disconnected explicit network?)");
            wanted.emplace_back(plan.nets[ni].cidr, first_via[static_cast<std::size_t>(best)]);
        }
        if (wanted.empty()) continue;
        std::map<std::string, int> count;
        for (const auto& w : wanted) ++count[w.second];
        std::string common;
        int most = 0;
        for (const auto& [via, c] : count)
            if (c > most) most = c, common = via;
        plan.routes.push_back({static_cast<int>(s), plan.data_cidr, common});
        for (const auto& w : wanted)
            if (w.second != common) plan.routes.push_back({static_cast<int>(s), w.first, w.second});
    }
}

void Builder::size_tcp_buffers() {
    // The largest bandwidth-delay product between any two leaves' first hosts (and inside a
    // leaf), doubled so that one connection can keep a WAN link full; and the longest round trip.
    std::vector<std::string> reps;
    for (const auto& [zone, hs] : leaf_hosts) {
        if (!hs.empty()) reps.push_back(hs.front());
        if (hs.size() > 1) reps.push_back(hs[1]);
    }
    double bdp = 0;
    for (const auto& a : reps)
        for (const auto& b : reps) {
            if (a == b) continue;
            const PathSpec ps = path_spec(plan, a, b);
            const double rate = ps.rate_Bps > 0 ? ps.rate_Bps : 1.25e9;  // unshaped: assume 10 Gbit/s
            bdp = std::max(bdp, rate * 2 * std::max(ps.delay_s, 1e-4));
            plan.longest_round_trip_s = std::max(plan.longest_round_trip_s, ps.delay_s + path_spec(plan, b, a).delay_s);
        }
    const double want = std::clamp(2 * bdp, 4.0 * 1024 * 1024, 256.0 * 1024 * 1024);
    plan.tcp_buffer_max = static_cast<long>(want);
}

void collect_leaves(const Zone& z, std::vector<const Zone*>& out) {
    if (z.is_leaf()) out.push_back(&z);
    for (const Zone& c : z.children) collect_leaves(c, out);
}

}  // namespace

TestbedPlan make_plan(const platform::Platform& p, const PlanOptions& opt) {
    if (opt.slot < 0 || opt.slot >= max_slots)
        throw Error("testbed slot " + std::to_string(opt.slot) + " out of range 0.." + std::to_string(max_slots - 1));
    if (opt.shaper != "auto" && opt.shaper != "netem" && opt.shaper != "delayline")
        throw Error("--shaper '" + opt.shaper + "': expected auto, netem or delayline");
    if (opt.native_delay_s < 0) throw Error("--native-delay must not be negative");
    Builder b(p, opt);
    TestbedPlan& plan = b.plan;
    plan.name = opt.name.empty() ? p.name : opt.name;
    for (char c : plan.name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            throw Error("testbed name '" + plan.name + "': use letters, digits, '-', '_' and '.' only");
    plan.platform_name = p.name;
    plan.slot = opt.slot;
    plan.containers = opt.containers;
    plan.tcp_congestion = opt.tcp_congestion;
    plan.prefix = "gc" + std::to_string(opt.slot) + "-";
    plan.state_dir = opt.state_root + "/" + plan.name;
    b.data_base = (198u << 24) | (18u << 16) | (static_cast<std::uint32_t>(32 * opt.slot) << 8);
    b.mgmt_base = (198u << 24) | (19u << 16) | (static_cast<std::uint32_t>(32 * opt.slot) << 8);
    plan.data_cidr = ipv4_to_string(b.data_base) + "/19";
    plan.mgmt_cidr = ipv4_to_string(b.mgmt_base) + "/19";

    for (const auto& h : platform::hosts(p)) {
        b.leaf_hosts[h.path.back()].push_back(h.name);
        plan.hosts.push_back(h.name);
        plan.host_cores[h.name] = h.cores;
    }
    b.build_zone(p.root, true);
    for (const auto& [host, ns] : plan.host_ns) {
        for (const Link& l : plan.links)
            if (l.a.ns == ns || (l.b.ns == ns && l.bridge.empty())) {
                const std::string& addr = l.a.ns == ns ? l.a.address : l.b.address;
                plan.data_address[host] = addr.substr(0, addr.find('/'));
                break;
            }
        if (!plan.data_address.count(host) && plan.hosts.size() > 1)
            throw Error("host '" + host + "' has no network link in platform '" + p.name + "'");
    }
    b.build_mgmt();
    b.compute_routes();
    b.size_tcp_buffers();
    plan.machines = {Machine{"local", "", true, "", -1, plan.mgmt_ns}};
    spread_over_machines(plan, opt.machines);

    int delay_links = 0;
    Shaper used = Shaper::Tbf;
    for (const Link& l : plan.links)
        if (l.shaper != Shaper::Tbf) ++delay_links, used = l.shaper;
    plan.delay_shaper = delay_links == 0 ? "none needed" : shaper_name(used);
    if (delay_links > 0)
        plan.notes.push_back(std::to_string(delay_links) + " link(s) need delay, jitter or loss: shaped by " +
                             plan.delay_shaper +
                             (opt.shaper == "auto" ? (opt.netem_available ? " (the kernel has sch_netem)"
                                                                          : " (the kernel has no sch_netem)")
                                                   : " (forced by --shaper)"));
    if (b.links_below_floor > 0)
        plan.notes.push_back(std::to_string(b.links_below_floor) + " link direction(s) have a delay at or below " +
                             format_duration(opt.native_delay_s) + " (up to " + format_duration(b.floor_example) +
                             "): left to the kernel's own path latency, not added (--native-delay 0 adds them)");
    for (const Segment& s : plan.segments)
        if (s.shared_rate_Bps > 0)
            plan.notes.push_back("zone '" + s.zone + "': all traffic entering its hub shares " +
                                 format_rate(s.shared_rate_Bps) + " (ifb + tbf)");
    std::vector<const Zone*> zones;
    std::function<void(const Zone&)> visit = [&](const Zone& z) {
        if (z.gateway && z.gateway->overhead_s > 0)
            plan.notes.push_back("zone '" + z.name + "': gateway overhead " + format_duration(z.gateway->overhead_s) +
                                 " emulated as added delay on the zone's uplink, both ways");
        for (const Zone& c : z.children) visit(c);
    };
    visit(p.root);
    plan.notes.push_back("not emulated: host speeds and core counts (ranks compute on this machine's cores) and "
                         "core_link (ranks of one host use real shared memory)");
    return plan;
}

}  // namespace gridcoll::emulate
