// The testbed builder without running anything: for every shipped platform (and the test
// platforms), the plan and the ip/tc command lists it produces must be self-consistent, stay in
// 198.18.0.0/15 and the testbed's own namespaces, shape every link as the description says,
// and route every host to every other along the description's latencies.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "ipv4.hpp"
#include "gridcoll/emulator/testbed.hpp"
#include "gridcoll/emulator/testbed_check.hpp"
#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"
#include "gridcoll/emulator/testbed_mpi.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"

namespace fs = std::filesystem;
namespace em = gridcoll::emulate;
namespace pf = gridcoll::platform;

namespace {

std::vector<std::string> platform_files() {
    std::vector<std::string> out;
    for (const char* dir : {"/platforms/shipped", "/tests/emulator/platforms"})
        for (const auto& e : fs::directory_iterator(std::string(GRIDCOLL_SOURCE_DIR) + dir))
            if (e.path().extension() == ".toml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

em::TestbedPlan plan_of(const std::string& file, bool netem, int slot = 0, const std::string& shaper = "auto",
                        int standins = 1) {
    em::PlanOptions o;
    o.netem_available = netem;
    o.slot = slot;
    o.shaper = shaper;
    o.state_root = "/run/gridcoll-test";
    o.machines = em::machines_from_spec(std::to_string(standins), slot, em::system_lookup());
    return em::make_plan(pf::load_platform(file), o);
}

std::string name_of(const testing::TestParamInfo<std::string>& info) {
    std::string n = fs::path(info.param).stem();
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

// Every argument after `key` in a command.
std::string arg_after(const em::Command& c, const std::string& key) {
    for (std::size_t i = 0; i + 1 < c.argv.size(); ++i)
        if (c.argv[i] == key) return c.argv[i + 1];
    return "";
}

// A testbed's up commands, checked one by one as they come: every command acts inside a namespace
// this testbed created before it; addresses lie in the benchmarking range, data and management
// apart, on known interfaces; interface names fit IFNAMSIZ and are unique per namespace.
struct CommandAudit {
    em::Cidr data, mgmt, bench = em::parse_cidr("198.18.0.0/15");
    std::set<std::string> created;
    std::map<std::string, std::set<std::string>> ifaces;  // ns -> interfaces

    void see(const em::Command& c) {
        if (c.argv.empty()) {
            ADD_FAILURE() << "an empty command";
            return;
        }
        const std::string& prog = c.argv[0];
        EXPECT_TRUE(prog == "ip" || prog == "tc" || prog == "touch" || prog == "unshare") << c.text();
        moved_or_renamed(c);
        if (c.argv.size() >= 4 && c.argv[1] == "netns" && c.argv[2] == "add") {
            EXPECT_EQ(c.argv[3].rfind("gc3-", 0), 0u) << c.text();
            EXPECT_TRUE(created.insert(c.argv[3]).second) << "namespace created twice: " << c.text();
            return;
        }
        inside_created_namespaces(c, prog);
        addresses_and_routes(c);
        added_interfaces(c, prog);
    }

private:
    // A tunnel end moved out of a machine's own stack, and renamed there.
    void moved_or_renamed(const em::Command& c) {
        if (c.argv.size() != 8 || c.argv[3] != "link" || c.argv[4] != "set") return;
        if (c.argv[6] == "netns") {
            EXPECT_EQ(ifaces[c.argv[2]].erase(c.argv[5]), 1u) << c.text();
            ifaces[c.argv[7]].insert(c.argv[5]);
        }
        if (c.argv[6] == "name") {
            EXPECT_EQ(ifaces[c.argv[2]].erase(c.argv[5]), 1u) << c.text();
            EXPECT_TRUE(ifaces[c.argv[2]].insert(c.argv[7]).second) << c.text();
        }
    }

    void inside_created_namespaces(const em::Command& c, const std::string& prog) {
        std::vector<std::string> nss;
        if (c.argv.size() > 2 && c.argv[1] == "-n") nss.push_back(c.argv[2]);
        if (c.argv.size() > 3 && c.argv[1] == "netns" && c.argv[2] == "exec") nss.push_back(c.argv[3]);
        for (std::size_t i = 0; i + 1 < c.argv.size(); ++i)
            if (c.argv[i] == "netns" && i >= 2 && c.argv[1] == "link") nss.push_back(c.argv[i + 1]);
        if (prog == "ip" || prog == "tc") {
            EXPECT_FALSE(nss.empty()) << "command outside the testbed: " << c.text();
        }
        for (const auto& n : nss) EXPECT_TRUE(created.count(n)) << "namespace not created yet: " << c.text();
    }

    void addresses_and_routes(const em::Command& c) {
        if (c.argv.size() > 5 && c.argv[3] == "addr" && c.argv[4] == "add") {
            const std::uint32_t a = em::parse_ipv4(c.argv[5]);
            EXPECT_TRUE(bench.contains(a)) << c.text();
            EXPECT_TRUE(data.contains(a) || mgmt.contains(a)) << c.text();  // stand-ins: the last /24 of mgmt
            EXPECT_TRUE(ifaces[c.argv[2]].count(arg_after(c, "dev"))) << "address on an unknown interface: " << c.text();
        }
        if (c.argv.size() > 5 && c.argv[3] == "route") {
            EXPECT_TRUE(data.contains(em::parse_ipv4(arg_after(c, "via")))) << c.text();
            const std::string dest = c.argv[4] == "replace" ? arg_after(c, "replace") : arg_after(c, "add");
            EXPECT_TRUE(data.contains(em::parse_cidr(dest).net)) << c.text();
        }
    }

    void add_interface(const em::Command& c, const std::string& ns, const std::string& name) {
        EXPECT_LE(name.size(), 15u) << c.text();
        EXPECT_TRUE(ifaces[ns].insert(name).second) << "interface twice in " << ns << ": " << c.text();
    }

    void added_interfaces(const em::Command& c, const std::string& prog) {
        if (prog != "ip") return;
        if (c.argv.size() > 8 && c.argv[1] == "link" && c.argv[2] == "add") {
            add_interface(c, arg_after(c, "netns"), c.argv[3]);
            std::string peer_ns;
            for (std::size_t i = 0; i + 1 < c.argv.size(); ++i)
                if (c.argv[i] == "netns") peer_ns = c.argv[i + 1];
            add_interface(c, peer_ns, arg_after(c, "name"));
        }
        if (c.argv.size() > 5 && c.argv[1] == "-n" && c.argv[3] == "link" && c.argv[4] == "add")
            add_interface(c, c.argv[2], c.argv[5]);
        if (c.argv.size() > 6 && c.argv[3] == "tuntap") add_interface(c, c.argv[2], c.argv[6]);
    }
};

// One namespace, hostname and management address per host; down removes every namespace up made.
void expect_hosts_and_down(const em::TestbedPlan& plan, const CommandAudit& audit) {
    for (const auto& h : plan.hosts) {
        EXPECT_TRUE(audit.created.count("gc3-h-" + h)) << h;
        EXPECT_TRUE(audit.mgmt.contains(em::parse_ipv4(plan.mgmt_address_of.at(h))));
        if (plan.hosts.size() > 1) {
            EXPECT_TRUE(audit.data.contains(em::parse_ipv4(plan.data_address.at(h))));
        }
    }
    std::set<std::string> deleted;
    for (const auto& c : em::down_commands(plan))
        if (c.argv.size() == 4 && c.argv[1] == "netns" && c.argv[2] == "del") deleted.insert(c.argv[3]);
    EXPECT_EQ(deleted, audit.created);
}

class EveryPlatform : public testing::TestWithParam<std::string> {};

TEST_P(EveryPlatform, CommandListsAreSelfConsistentAndStayInTheTestRange) {
    for (const auto& [netem, standins] : {std::pair{false, 1}, std::pair{true, 1}, std::pair{false, 3}}) {
        SCOPED_TRACE(std::string(netem ? "with netem" : "without netem") + ", machines " + std::to_string(standins));
        const em::TestbedPlan plan = plan_of(GetParam(), netem, 3, "auto", standins);
        EXPECT_EQ(plan.prefix, "gc3-");
        EXPECT_EQ(plan.data_cidr, "198.18.96.0/19");
        EXPECT_EQ(plan.mgmt_cidr, "198.19.96.0/19");
        CommandAudit audit;
        audit.data = em::parse_cidr(plan.data_cidr);
        audit.mgmt = em::parse_cidr(plan.mgmt_cidr);

        const em::UpScript up = em::up_commands(plan);
        for (const auto& c : up.setup) audit.see(c);
        for (const auto& c : up.routes) audit.see(c);
        expect_hosts_and_down(plan, audit);
        // Delay lines: without netem every delaying link has one; with netem none.
        int delaying = 0;
        for (const auto& l : plan.links) delaying += l.shaper != em::Shaper::Tbf;
        EXPECT_EQ(up.daemons.size(), netem ? 0u : static_cast<std::size_t>(delaying));
        for (const auto& d : up.daemons) {
            EXPECT_NE(std::find(d.argv.begin(), d.argv.end(), "--ready-file"), d.argv.end());
            EXPECT_EQ(d.ready_file.rfind(plan.state_dir, 0), 0u);
        }
        // Every host reaches every other (sampled: the path classes cover every pair of leaves).
        for (const auto& c : em::path_classes(plan)) {
            EXPECT_GT(c.there.hops, 0);
            EXPECT_LT(c.there.hops, 16);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Platforms, EveryPlatform, testing::ValuesIn(platform_files()), name_of);

TEST(TestbedPlan, DasPathsHaveTheDescriptionsLatencyAndBottleneck) {
    const em::TestbedPlan plan = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x32.toml", false);
    // Inside a cluster: two edges of 10 us at 50 MB/s.
    const em::PathSpec lan = em::path_spec(plan, "c0-0", "c0-5");
    EXPECT_NEAR(lan.delay_s, 20e-6, 1e-12);
    EXPECT_DOUBLE_EQ(lan.rate_Bps, 50e6);
    EXPECT_EQ(lan.hops, 1);  // one bridge
    EXPECT_NEAR(lan.unshaped_delay_s, 20e-6, 1e-12);  // both 10 us edges left to the kernel
    // Across the WAN: 10 us + 10 ms + 10 us, bottleneck 1 MB/s, over the direct mesh link.
    const em::PathSpec wan = em::path_spec(plan, "c0-3", "c2-7");
    EXPECT_NEAR(wan.delay_s, 10e-3 + 20e-6, 1e-12);
    EXPECT_DOUBLE_EQ(wan.rate_Bps, 1e6);
    EXPECT_EQ(wan.hops, 3);
    EXPECT_NEAR(wan.unshaped_delay_s, 20e-6, 1e-12);  // the edges, not the 10 ms delay line
    // The 10 ms mesh links are delay lines here (no netem), the 10 us edges are not shaped in time.
    int delaylines = 0;
    for (const auto& l : plan.links) delaylines += l.shaper == em::Shaper::DelayLine;
    EXPECT_EQ(delaylines, 6);  // 4 clusters, full mesh
    const em::UpScript up = em::up_commands(plan);
    ASSERT_EQ(up.daemons.size(), 6u);
    const auto& argv = up.daemons[0].argv;
    const auto ab = std::find(argv.begin(), argv.end(), "--ab");
    ASSERT_NE(ab, argv.end());
    // The queue: 100 ms of the 1 MB/s rate (100,000 bytes, rounded up to KiB), not 1000 frames.
    EXPECT_EQ(*(ab + 1), "delay=10000us,jitter=0us,loss=0.000000,rate=8000000bit,limit=98K,order=any,acks=skip");
}

TEST(TestbedPlan, HostsGetTheLeastRetransmissionTimeoutThePlanSays) {
    em::TestbedPlan plan = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml", false);
    const auto count = [](const em::TestbedPlan& p) {
        int n = 0;
        for (const em::Command& c : em::up_commands(p).setup)
            n += std::find(c.argv.begin(), c.argv.end(), "net.ipv4.tcp_rto_min_us=12800000") != c.argv.end();
        return n;
    };
    EXPECT_EQ(count(plan), 0);  // undilated: the kernel's own
    plan.tcp_rto_min_us = 12800000;  // x64
    EXPECT_EQ(count(plan), static_cast<int>(plan.hosts.size()));
}

// Every host gets a route to each other network of hosts that advertises twice the bandwidth-
// delay product of its path there (so TCP's window cannot outgrow a link and its queue), by the
// next hop its routes already take; routers get none. umesh8's links differ, so the windows do.
TEST(TestbedPlan, HostsAdvertiseTwiceEachPathsBandwidthDelayProduct) {
    for (const std::string& file : {std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml",
                                   std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/ring-8x16.toml",
                                   std::string(GRIDCOLL_SOURCE_DIR) + "/tests/emulator/platforms/two-sites-2x2.toml"}) {
        const em::TestbedPlan plan = plan_of(file, false);
        std::map<std::string, std::string> host_of_ns;
        for (const auto& [host, n] : plan.host_ns) host_of_ns[plan.ns[static_cast<std::size_t>(n)].name] = host;
        std::set<std::pair<std::string, std::string>> covered;  // (host, destination host)
        for (const em::Command& c : em::up_commands(plan).routes) {
            const auto w = std::find(c.argv.begin(), c.argv.end(), "window");
            if (w == c.argv.end()) continue;
            ASSERT_TRUE(host_of_ns.count(c.argv.at(2))) << "a window on a router's route: " << c.text();
            EXPECT_EQ(c.argv.at(4), "replace") << c.text();
            const std::string from = host_of_ns[c.argv.at(2)];
            const em::Cidr dest = em::parse_cidr(c.argv.at(5));
            for (const auto& [to, addr] : plan.data_address) {
                if (!dest.contains(em::parse_ipv4(addr))) continue;
                const em::PathSpec back = em::path_spec(plan, to, from);  // the data the window holds back
                const double want = 2 * back.rate_Bps * (back.delay_s + em::path_spec(plan, from, to).delay_s);
                EXPECT_NEAR(std::stod(*(w + 1)), std::max(16384.0, want), 0.01 * want) << c.text() << " to " << to;
                covered.insert({from, to});
            }
        }
        for (const std::string& from : plan.hosts) {  // every host beyond a host's own network is covered
            for (const std::string& to : plan.hosts) {
                if (em::path_spec(plan, from, to).hops < 2) continue;
                EXPECT_TRUE(covered.count({from, to})) << file << ": " << from << " -> " << to;
            }
        }
    }
    const em::TestbedPlan mixed = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/mixed-wan-5x16.toml", false);
    std::set<long> windows;
    for (const em::WindowRoute& r : em::route_windows(mixed)) windows.insert(r.window);
    EXPECT_GT(windows.size(), 1u);  // links of several speeds, windows of several sizes
    const em::TestbedPlan das = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml", false);
    ASSERT_EQ(em::route_windows(das).size(), 3 * das.hosts.size());  // three other sites
    EXPECT_EQ(em::route_windows(das).front().window, 40080);  // 2 x 1 MB/s x 2 x (10 ms + 2 x 10 us)
}

// --no-windows: no route advertises a window, the routes the hosts take are the same, and the
// summary names no window.
TEST(TestbedPlan, WindowRoutesCanBeTurnedOff) {
    em::TestbedPlan plan = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml", false);
    const auto with = em::up_commands(plan).routes;
    ASSERT_NE(em::summary(plan).find("receive windows"), std::string::npos);
    plan.window_routes = false;
    EXPECT_TRUE(em::route_windows(plan).empty());
    const auto without = em::up_commands(plan).routes;
    for (const em::Command& c : without)
        EXPECT_EQ(std::find(c.argv.begin(), c.argv.end(), "window"), c.argv.end()) << c.text();
    EXPECT_EQ(without.size() + em::route_windows(plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml",
                                                           false)).size(), with.size());
    EXPECT_EQ(em::summary(plan).find("receive windows"), std::string::npos);
}

// Where nodes of a leaf are joined by point-to-point links (mixed.toml's mesh, ring-root.toml's
// ring), a window route never names a network the host is on (it would replace the host's own
// link route), goes through a neighbour, and comes once per host and network.
TEST(TestbedPlan, WindowRoutesLeaveAHostsOwnLinksAlone) {
    for (const char* name : {"mixed", "ring-root"}) {
        const em::TestbedPlan plan = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/tests/platforms/routes/" + name + ".toml", false);
        std::map<int, std::vector<em::Cidr>> own;  // host namespace -> the networks it is on
        for (const em::Net& net : plan.nets)
            for (const em::NetMember& m : net.members)
                if (plan.ns[static_cast<std::size_t>(m.ns)].kind == em::NsKind::Host) own[m.ns].push_back(em::parse_cidr(net.cidr));
        std::set<std::pair<int, std::string>> seen;
        for (const em::WindowRoute& r : em::route_windows(plan)) {
            ASSERT_TRUE(own.count(r.ns)) << name << ": a window route outside the hosts: " << r.dest;
            EXPECT_TRUE(seen.insert({r.ns, r.dest}).second) << name << ": twice: " << r.dest;
            const em::Cidr dest = em::parse_cidr(r.dest);
            bool neighbour = false;
            for (const em::Cidr& c : own[r.ns]) {
                EXPECT_FALSE(c.net == dest.net && c.len == dest.len) << name << ": a host's own network: " << r.dest;
                neighbour = neighbour || c.contains(em::parse_ipv4(r.via));
            }
            EXPECT_TRUE(neighbour) << name << ": " << r.dest << " via " << r.via << " is not on the host's networks";
        }
    }
}

TEST(TestbedPlan, NetemCarriesDelayLossAndRateWhenTheKernelHasIt) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/tests/emulator/platforms/two-sites-2x2.toml";
    const em::TestbedPlan plan = plan_of(file, true);
    const em::UpScript up = em::up_commands(plan);
    int netem = 0;
    for (const auto& c : up.setup) {
        const std::string t = c.text();
        if (t.find(" netem ") != std::string::npos) {
            ++netem;
            EXPECT_NE(t.find("delay 5000us"), std::string::npos) << t;
            EXPECT_NE(t.find("rate 20000000bit"), std::string::npos) << t;
        }
    }
    EXPECT_EQ(netem, 2);  // both directions of the one WAN link
    EXPECT_TRUE(up.daemons.empty());
    EXPECT_EQ(plan.delay_shaper, "netem");
}

TEST(TestbedPlan, ForcingNetemWithoutItIsAClearError) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/tests/emulator/platforms/two-sites-2x2.toml";
    try {
        plan_of(file, false, 0, "netem");
        FAIL() << "expected an error";
    } catch (const gridcoll::Error& e) {
        EXPECT_NE(std::string(e.what()).find("no sch_netem"), std::string::npos) << e.what();
    }
    EXPECT_THROW(plan_of(file, false, 8), gridcoll::Error);         // slot out of range
    EXPECT_THROW(plan_of(file, false, 0, "tc"), gridcoll::Error);   // unknown shaper
}

TEST(TestbedPlan, QdiscArguments) {
    em::Direction d;
    d.delay_s = 0.01;
    d.jitter_s = 0.001;
    d.loss = 0.05;
    d.rate_Bps = 125e6;
    const auto n = em::qdisc_args(d, em::Shaper::Netem, 0);
    const std::vector<std::string> head{"netem", "delay", "10000us", "1000us", "loss", "5%", "rate", "1000000000bit", "limit"};
    ASSERT_GE(n.size(), head.size());
    EXPECT_TRUE(std::equal(head.begin(), head.end(), n.begin()));
    const auto t = em::qdisc_args(d, em::Shaper::Tbf, 0);
    ASSERT_EQ(t.size(), 7u);
    EXPECT_EQ(t[0], "tbf");
    EXPECT_EQ(t[2], "1000000000bit");
    EXPECT_EQ(t[4], "500000");  // 4 ms of 125 MB/s
    EXPECT_EQ(t[6], "100000us");
    // Dilated x64: the queue holds 64 x 100 ms of the (already dilated) rate, the same bytes.
    EXPECT_EQ(em::qdisc_args(d, em::Shaper::Tbf, 0, 64)[6], "6400000us");
    const auto n64 = em::qdisc_args(d, em::Shaper::Netem, 0, 64);
    EXPECT_GT(std::stol(n64.back()), std::stol(n.back()));
    em::Direction none;
    EXPECT_TRUE(em::qdisc_args(none, em::Shaper::Tbf, 0).empty());
}

TEST(TestbedPlan, TwoTestbedsDoNotShareNamesOrAddresses) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/tests/emulator/platforms/two-sites-2x2.toml";
    const em::TestbedPlan a = plan_of(file, false, 0), b = plan_of(file, false, 1);
    std::set<std::string> names;
    for (const auto& n : a.ns) names.insert(n.name);
    for (const auto& n : b.ns) EXPECT_FALSE(names.count(n.name)) << n.name;
    const em::Cidr ca = em::parse_cidr(a.data_cidr), cb = em::parse_cidr(b.data_cidr);
    for (const auto& [h, addr] : b.data_address) EXPECT_FALSE(ca.contains(em::parse_ipv4(addr))) << addr;
    for (const auto& [h, addr] : a.data_address) EXPECT_FALSE(cb.contains(em::parse_ipv4(addr))) << addr;
}

TEST(TestbedPlan, GatewaysAddTheirOverheadAndLimitTheRate) {
    // madiii: clusters foo and bar joined by a 20 us, 100 MiB/s link; foo's gateway adds 30 us
    // and limits to 35 MiB/s (paper 004). Leaving foo costs its edge (10 us) + 20 us + 30 us + bar's edge.
    const em::TestbedPlan plan = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/madiii.toml", false);
    const std::string foo = plan.hosts.front(), bar = plan.hosts.back();
    const em::PathSpec p = em::path_spec(plan, foo, bar);
    const em::PathSpec inside = em::path_spec(plan, plan.hosts[0], plan.hosts[1]);
    EXPECT_NEAR(p.delay_s - inside.delay_s, 20e-6 + 30e-6, 1e-6) << foo << " -> " << bar;
    EXPECT_DOUBLE_EQ(p.rate_Bps, 35.0 * 1024 * 1024);
}

TEST(TestbedPlan, RingRoutesStayInsideTheZone) {
    // explicit-3's ring 'b' and explicit cluster 'c0' have edges to their zone router that would
    // be shorter than the ring; traffic between members must still go round the ring.
    const em::TestbedPlan plan = plan_of(std::string(GRIDCOLL_SOURCE_DIR) + "/tests/platforms/valid/explicit-3.toml", false);
    const em::PathSpec p = em::path_spec(plan, "c0-0", "c0-2");
    EXPECT_EQ(p.hops, 2);
    EXPECT_NEAR(p.delay_s, 2e-6, 1e-12);
}

TEST(TestbedMpi, AgentRunsInTheHostsNamespaces) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/tests/emulator/platforms/two-sites-2x2.toml";
    const em::TestbedPlan plan = plan_of(file, false, 2);
    const std::string s = em::rsh_agent_script(plan);
    EXPECT_NE(s.find("/run/netns/gc2-h-$host"), std::string::npos);
    EXPECT_NE(s.find("/run/gridcoll-test/two-sites-2x2/uts/$host"), std::string::npos);
    EXPECT_NE(s.find("exit 255"), std::string::npos);
}

TEST(TestbedMpi, MpirunUsesThePlacementAndTheCallersMcaReplaceDefaults) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/tests/emulator/platforms/two-sites-2x2.toml";
    const pf::Platform p = pf::load_platform(file);
    em::PlanOptions o;
    o.state_root = testing::TempDir() + "gctestbed-mpi";
    const em::TestbedPlan plan = em::make_plan(p, o);
    fs::create_directories(plan.state_dir);
    em::MpiOptions mo;
    mo.extra_mca = {"--mca", "btl", "self,tcp", "--mca", "btl_tcp_eager_limit", "131072"};
    const auto argv = em::prepare_mpirun(plan, p, mo, {"prog", "arg"});
    auto values_of = [&](const std::string& key) {
        std::vector<std::string> v;
        for (std::size_t i = 0; i + 2 < argv.size(); ++i)
            if (argv[i] == "--mca" && argv[i + 1] == key) v.push_back(argv[i + 2]);
        return v;
    };
    EXPECT_EQ(values_of("btl"), std::vector<std::string>{"self,tcp"});
    EXPECT_EQ(values_of("btl_tcp_eager_limit"), std::vector<std::string>{"131072"});
    EXPECT_EQ(values_of("btl_tcp_if_include"), std::vector<std::string>{plan.data_cidr});
    EXPECT_EQ(values_of("oob_tcp_if_include"), std::vector<std::string>{plan.mgmt_cidr});
    EXPECT_EQ(values_of("rmaps"), std::vector<std::string>{"seq"});
    EXPECT_EQ(values_of("orte_base_help_aggregate"), std::vector<std::string>{"0"});  // ompi issue 8356
    EXPECT_EQ(argv.front(), "nsenter");
    EXPECT_EQ(argv[1], "--net=/run/netns/gc0-mgmt");
    EXPECT_EQ(argv[argv.size() - 2], "prog");
    // The hostfile has one host per rank, in the description's placement (block, 2 cores a host).
    std::string hostfile;
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == "--hostfile") hostfile = argv[i + 1];
    std::ifstream f(hostfile);
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    EXPECT_EQ(lines, (std::vector<std::string>{"s0-0", "s0-0", "s0-1", "s0-1", "s1-0", "s1-0", "s1-1", "s1-1"}));
    fs::remove_all(o.state_root);
}

}  // namespace
