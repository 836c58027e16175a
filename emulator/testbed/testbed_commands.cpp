#include "gridcoll/emulator/testbed_commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "gridcoll/emulator/testbed_machines.hpp"

namespace gridcoll::emulate {

namespace {

std::string quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,%+@") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string bits(double Bps) { return std::to_string(static_cast<long long>(std::llround(Bps * 8))) + "bit"; }
std::string micros(double s) { return std::to_string(static_cast<long long>(std::llround(s * 1e6))) + "us"; }
std::string percent(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g%%", p * 100);
    return buf;
}

struct Out {
    const TestbedPlan& plan;
    std::vector<Command>& cmds;
    const std::string& ns(int i) const { return plan.ns[static_cast<std::size_t>(i)].name; }
    int machine(int i) const { return plan.ns[static_cast<std::size_t>(i)].machine; }
    // A command that runs on `m` (the machine of the namespaces it names).
    void add(std::vector<std::string> argv, int m) { cmds.push_back({std::move(argv), m}); }
    void ip(int n, std::vector<std::string> rest) {
        std::vector<std::string> argv{"ip", "-n", ns(n)};
        argv.insert(argv.end(), rest.begin(), rest.end());
        add(std::move(argv), machine(n));
    }
    void tc(int n, std::vector<std::string> rest) {
        std::vector<std::string> argv{"tc", "-n", ns(n)};
        argv.insert(argv.end(), rest.begin(), rest.end());
        add(std::move(argv), machine(n));
    }
    void sysctl(int n, const std::string& kv) {
        add({"ip", "netns", "exec", ns(n), "sysctl", "-q", "-w", kv}, machine(n));
    }
};

// The delay line's per-direction spec: delay=..,jitter=..,loss=..,rate=..,limit=..[,order=any,acks=skip]
// Its drop-tail queue holds what tbf's does (rate_queue_s of the rate, at least 64 KiB): the
// delay line's default of 1000 frames is 1.5 s of a 1 MB/s WAN, where TCP's window grows into
// seconds of queueing. Without jitter, acknowledgements skip the queue (nothing else reorders):
// the platform's links are full duplex, and an exchange both ways at once (an allreduce's
// leaders) must not wait for each way's acknowledgements behind the other way's data.
std::string delayline_spec(const Direction& d, double dilation) {
    std::string s = "delay=" + micros(d.delay_s) + ",jitter=" + micros(d.jitter_s) + ",loss=" + std::to_string(d.loss);
    s += ",rate=" + (d.rate_Bps > 0 ? bits(d.rate_Bps) : std::string("0"));
    if (d.rate_Bps > 0) {
        const double bytes = std::max(65536.0, d.rate_Bps * rate_queue_s(dilation));
        s += ",limit=" + std::to_string(static_cast<long>(std::ceil(bytes / 1024))) + "K";
        if (d.jitter_s == 0) s += ",order=any,acks=skip";
    }
    return s;
}

}  // namespace

std::string Command::text() const {
    std::string out;
    for (const auto& a : argv) out += (out.empty() ? "" : " ") + quote(a);
    return out;
}

std::vector<std::string> qdisc_args(const Direction& d, Shaper s, double native_delay_s, double dilation) {
    const double queue_s = rate_queue_s(dilation);
    if (s == Shaper::Netem) {
        std::vector<std::string> a{"netem"};
        if (d.delay_s > native_delay_s || d.jitter_s > 0) {
            a.insert(a.end(), {"delay", micros(d.delay_s)});
            if (d.jitter_s > 0) a.push_back(micros(d.jitter_s));
        }
        if (d.loss > 0) a.insert(a.end(), {"loss", percent(d.loss)});
        if (d.rate_Bps > 0) a.insert(a.end(), {"rate", bits(d.rate_Bps)});
        // Room for a bandwidth-delay product of frames in flight inside netem.
        const double frames = d.rate_Bps > 0 ? d.rate_Bps * (2 * d.delay_s + queue_s) / 1500 : 10000;
        a.insert(a.end(), {"limit", std::to_string(std::max(1000L, static_cast<long>(frames)))});
        return a.size() > 3 ? a : std::vector<std::string>{};
    }
    if (s == Shaper::Tbf && d.rate_Bps > 0) {
        // Burst: at least two full frames, and a timer tick's worth (HZ 250 -> 4 ms) of rate.
        const long burst = std::max(3028L, static_cast<long>(d.rate_Bps * 0.004));
        return {"tbf", "rate", bits(d.rate_Bps), "burst", std::to_string(burst), "latency", micros(queue_s)};
    }
    return {};
}

namespace {

// Namespaces, loopback, hostnames, rp_filter and forwarding, TCP buffers.
void add_namespaces(Out& o, const TestbedPlan& plan) {
    for (std::size_t i = 0; i < plan.ns.size(); ++i) {
        const Netns& n = plan.ns[i];
        o.add({"ip", "netns", "add", n.name}, n.machine);
        o.ip(static_cast<int>(i), {"link", "set", "lo", "up"});
        if (n.kind == NsKind::Host) {
            o.add({"touch", plan.uts_file(n.label)}, n.machine);
            o.add({"unshare", "--uts=" + plan.uts_file(n.label), "hostname", n.label}, n.machine);
        }
        if (n.kind == NsKind::Router || n.kind == NsKind::Host) {
            o.sysctl(static_cast<int>(i), "net.ipv4.conf.all.rp_filter=0");
            o.sysctl(static_cast<int>(i), "net.ipv4.conf.default.rp_filter=0");
        }
    }
    for (int f : plan.forwarding_ns) o.sysctl(f, "net.ipv4.ip_forward=1");
    // TCP buffers sized for the bandwidth-delay product (autotuning stays on).
    const std::string max = std::to_string(plan.tcp_buffer_max);
    // MPI keeps its connections for the whole run and sends in bursts: without this, every burst
    // after a pause longer than the retransmission timeout starts again from the initial
    // congestion window (2-3 extra WAN round trips for a 64 KiB message).
    for (const auto& [host, n] : plan.host_ns) {
        o.sysctl(n, "net.ipv4.tcp_rmem=4096 131072 " + max);
        o.sysctl(n, "net.ipv4.tcp_wmem=4096 65536 " + max);
        o.sysctl(n, "net.ipv4.tcp_slow_start_after_idle=0");
        // The plan's choice (testbed.cpp: CUBIC, Reno under time dilation), not the machine's.
        if (!plan.tcp_congestion.empty()) o.sysctl(n, "net.ipv4.tcp_congestion_control=" + plan.tcp_congestion);
        // Under time dilation TCP's 200 ms floor on the retransmission timeout is K times larger
        // (testbed.cpp), as the round trips it guards are.
        if (plan.tcp_rto_min_us > 0) o.sysctl(n, "net.ipv4.tcp_rto_min_us=" + std::to_string(plan.tcp_rto_min_us));
    }
}

// The bridges of shared segments (hubs), with their shared rate through an ifb.
void add_hubs(Out& o, const TestbedPlan& plan) {
    for (std::size_t si = 0; si < plan.segments.size(); ++si) {
        const Segment& s = plan.segments[si];
        o.ip(s.ns, {"link", "add", s.bridge, "type", "bridge"});
        o.ip(s.ns, {"addr", "add", s.address, "dev", s.bridge});
        o.ip(s.ns, {"link", "set", s.bridge, "up"});
        if (s.shared_rate_Bps > 0) {
            o.ip(s.ns, {"link", "add", "ifb0", "type", "ifb"});
            o.ip(s.ns, {"link", "set", "ifb0", "up"});
            Direction d;
            d.rate_Bps = s.shared_rate_Bps;
            std::vector<std::string> a{"qdisc", "add", "dev", "ifb0", "root"};
            for (auto& x : qdisc_args(d, Shaper::Tbf, 0, plan.dilation)) a.push_back(x);
            o.tc(s.ns, a);
        }
    }
}

// The delay line that shapes link `li` (a daemon, started in the background).
Daemon delay_line(const Out& o, const TestbedPlan& plan, const Link& l, std::size_t li, const CommandOptions& opt) {
    Daemon d;
    d.label = "delayline " + l.a.ifname.substr(0, l.a.ifname.size() - 1) + " (" + o.ns(l.a.ns) + " <-> " +
              o.ns(l.b.ns) + ")";
    d.machine = o.machine(l.a.ns);
    d.ready_file = plan.state_dir + "/run/" + l.a.ifname + ".ready";
    d.log_file = plan.state_dir + "/log/" + l.a.ifname + ".log";
    if (opt.delayline_realtime > 0) {
        d.argv = {opt.delayline, "--realtime", std::to_string(opt.delayline_realtime)};
    } else if (opt.delayline_nice != 0) {
        d.argv = {"nice", "-n", std::to_string(opt.delayline_nice), opt.delayline};
    } else {
        d.argv = {opt.delayline};
    }
    const std::vector<std::string> rest{"--tap-a", l.a.ifname, "--netns-a", o.ns(l.a.ns), "--tap-b", l.b.ifname,
                                        "--netns-b", o.ns(l.b_home), "--ab", delayline_spec(l.ab, plan.dilation), "--ba",
                                        delayline_spec(l.ba, plan.dilation), "--seed", std::to_string(li + 1),
                                        "--ready-file", d.ready_file};
    d.argv.insert(d.argv.end(), rest.begin(), rest.end());
    const bool exact_per_frame = l.ab.loss > 0 || l.ba.loss > 0 || l.ab.jitter_s > 0 || l.ba.jitter_s > 0;
    if (opt.delayline_offload && !exact_per_frame) d.argv.push_back("--offload");
    return d;
}

// A link that crosses machines: on a's machine, b's end joins a bridge in the tunnel namespace
// with the tunnel's near end; on b's machine the far end takes b's name in b's namespace.
void add_crossing(Out& o, const TestbedPlan& plan, std::size_t li) {
    const Link& l = plan.links[li];
    const std::string br = "tb" + std::to_string(li), vx = "vx" + std::to_string(li);
    const auto t = static_cast<std::size_t>(l.tunnel);
    o.ip(l.b_home, {"link", "add", br, "type", "bridge"});
    o.ip(l.b_home, {"link", "set", br, "up"});
    o.ip(l.b_home, {"link", "set", l.b.ifname, "master", br});
    add_tunnel_end(plan, t, true, l.b_home, vx, o.cmds);
    o.ip(l.b_home, {"link", "set", vx, "master", br});
    o.ip(l.b_home, {"link", "set", vx, "up"});
    o.ip(l.b_home, {"link", "set", l.b.ifname, "up"});
    add_tunnel_end(plan, t, false, l.b.ns, l.b.ifname, o.cmds);
}

// One link: veth with qdiscs, or two TAPs joined by a delay line; its bridge port, addresses,
// and a shared segment's ingress redirect.
void add_link(Out& o, const TestbedPlan& plan, std::size_t li, const CommandOptions& opt, UpScript& up) {
    const Link& l = plan.links[li];
    if (l.shaper == Shaper::DelayLine) {
        o.ip(l.a.ns, {"tuntap", "add", "dev", l.a.ifname, "mode", "tap"});
        o.ip(l.b_home, {"tuntap", "add", "dev", l.b.ifname, "mode", "tap"});
    } else {
        o.add({"ip", "link", "add", l.a.ifname, "netns", o.ns(l.a.ns), "type", "veth", "peer", "name", l.b.ifname,
               "netns", o.ns(l.b_home)}, o.machine(l.a.ns));
        for (const auto& [ns, name, dir] : {std::tuple{l.a.ns, &l.a.ifname, &l.ab}, std::tuple{l.b_home, &l.b.ifname, &l.ba}}) {
            auto args = qdisc_args(*dir, l.shaper, 0, plan.dilation);
            if (args.empty()) continue;
            std::vector<std::string> a{"qdisc", "add", "dev", *name, "root"};
            a.insert(a.end(), args.begin(), args.end());
            o.tc(ns, a);
        }
    }
    if (l.tunnel >= 0) add_crossing(o, plan, li);
    if (!l.bridge.empty()) o.ip(l.b.ns, {"link", "set", l.b.ifname, "master", l.bridge});
    if (!l.a.address.empty()) o.ip(l.a.ns, {"addr", "add", l.a.address, "dev", l.a.ifname});
    if (!l.b.address.empty()) o.ip(l.b.ns, {"addr", "add", l.b.address, "dev", l.b.ifname});
    o.ip(l.a.ns, {"link", "set", l.a.ifname, "up"});
    o.ip(l.b.ns, {"link", "set", l.b.ifname, "up"});
    if (!l.bridge.empty())
        for (const Segment& s : plan.segments)
            if (s.ns == l.b.ns && s.bridge == l.bridge && s.shared_rate_Bps > 0) {
                o.tc(l.b.ns, {"qdisc", "add", "dev", l.b.ifname, "handle", "ffff:", "ingress"});
                o.tc(l.b.ns, {"filter", "add", "dev", l.b.ifname, "parent", "ffff:", "protocol", "all", "u32",
                              "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev", "ifb0"});
            }
    if (l.shaper == Shaper::DelayLine) up.daemons.push_back(delay_line(o, plan, l, li, opt));
}

// Management network: one unshaped bridge, one port per host; on a testbed over several
// machines a bridge per machine, each joined to machine 0's by a tunnel.
void add_management(Out& o, const TestbedPlan& plan) {
    for (const Machine& m : plan.machines) {
        o.ip(m.mgmt_ns, {"link", "add", "mg0", "type", "bridge"});
        if (m.mgmt_ns == plan.mgmt_ns) o.ip(m.mgmt_ns, {"addr", "add", plan.mgmt_address + "/19", "dev", "mg0"});
        o.ip(m.mgmt_ns, {"link", "set", "mg0", "up"});
    }
    for (std::size_t t = 0; t < plan.tunnels.size(); ++t) {
        const Tunnel& tn = plan.tunnels[t];
        if (tn.link >= 0) continue;
        const int far = plan.machines[static_cast<std::size_t>(tn.machine_b)].mgmt_ns;
        const std::string near_name = "mv" + std::to_string(tn.machine_b);
        add_tunnel_end(plan, t, true, plan.mgmt_ns, near_name, o.cmds);
        add_tunnel_end(plan, t, false, far, "mv0", o.cmds);
        for (const auto& [ns, dev] : {std::pair{plan.mgmt_ns, near_name}, std::pair{far, std::string("mv0")}}) {
            o.ip(ns, {"link", "set", dev, "master", "mg0"});
            o.ip(ns, {"link", "set", dev, "up"});
        }
    }
    for (std::size_t i = 0; i < plan.hosts.size(); ++i) {
        const std::string& h = plan.hosts[i];
        const int hn = plan.host_ns.at(h);
        const int mg = plan.machines[static_cast<std::size_t>(o.machine(hn))].mgmt_ns;
        const std::string port = "m" + std::to_string(i);
        o.add({"ip", "link", "add", "mg0", "netns", o.ns(hn), "type", "veth", "peer", "name", port, "netns", o.ns(mg)},
              o.machine(hn));
        o.ip(mg, {"link", "set", port, "master", "mg0"});
        o.ip(mg, {"link", "set", port, "up"});
        o.ip(hn, {"addr", "add", plan.mgmt_address_of.at(h) + "/19", "dev", "mg0"});
        o.ip(hn, {"link", "set", "mg0", "up"});
    }
}

// The plan's routes, then each host's routes to the other LANs of hosts with the receive window
// it advertises there (route_windows), so that TCP's window stays near what the path and its
// queue hold.
void add_routes(Out& r, const TestbedPlan& plan) {
    for (const Route& rt : plan.routes) r.ip(rt.ns, {"route", "add", rt.dest, "via", rt.via});
    for (const WindowRoute& w : route_windows(plan))
        r.ip(w.ns, {"route", "replace", w.dest, "via", w.via, "window", std::to_string(w.window)});
}

}  // namespace

UpScript up_commands(const TestbedPlan& plan, const CommandOptions& opt) {
    UpScript up;
    Out o{plan, up.setup};
    add_namespaces(o, plan);
    add_standin_network(plan, up.setup);
    add_hubs(o, plan);
    for (std::size_t li = 0; li < plan.links.size(); ++li) add_link(o, plan, li, opt, up);
    add_management(o, plan);
    Out r{plan, up.routes};
    add_routes(r, plan);
    if (plan.containers) up.hosts = host_containers(plan);
    return up;
}

std::vector<Command> down_commands(const TestbedPlan& plan) {
    std::vector<Command> cmds;
    for (const Netns& n : plan.ns) cmds.push_back({{"ip", "netns", "del", n.name}, n.machine});
    for (const std::string& h : plan.hosts) cmds.push_back({{"umount", plan.uts_file(h)}, plan.machine_of_host(h)});
    return cmds;
}

}  // namespace gridcoll::emulate
