// A testbed over several machines, without running anything: which machine each namespace goes
// to, which links cross and how their tunnels are made, the commands each machine runs, the
// `--machines` values and their errors, and the rsh agent's hand-over of another machine's hosts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"
#include "gridcoll/emulator/testbed_mpi.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"
#include "gridcoll/emulator/testbed_remote.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/system/process.hpp"

namespace fs = std::filesystem;
namespace em = gridcoll::emulate;
namespace pf = gridcoll::platform;

namespace {

std::string platform_file(const std::string& name) {
    return std::string(GRIDCOLL_SOURCE_DIR) + (name.rfind("das", 0) == 0 ? "/platforms/shipped/" : "/tests/emulator/platforms/") +
           name + ".toml";
}

// Machines by name: "b" is this one; every name resolves to 10.0.0.<its letter>.
em::AddressLookup fake_lookup(const std::string& local = "b") {
    em::AddressLookup l;
    l.ipv4 = [](const std::string& n) -> std::string {
        if (n.size() != 1 || n[0] < 'a' || n[0] > 'z') return n.find('.') != std::string::npos ? n : "";
        return "10.0.0." + std::to_string(n[0] - 'a' + 1);
    };
    l.is_local = [local](const std::string& a) { return a == "10.0.0." + std::to_string(local[0] - 'a' + 1); };
    return l;
}

em::TestbedPlan plan_with(const std::string& platform, const std::string& machines, int slot = 1, int part = -1) {
    em::PlanOptions o;
    o.slot = slot;
    o.state_root = "/run/gridcoll-test";
    o.machines = em::machines_from_spec(machines, slot, fake_lookup(), part);
    return em::make_plan(pf::load_platform(platform_file(platform)), o);
}

// The namespaces a command names: -n X, netns add|del|exec X, link ... netns X.
std::vector<std::string> namespaces_named(const em::Command& c) {
    std::vector<std::string> v;
    for (std::size_t i = 0; i + 1 < c.argv.size(); ++i) {
        if (c.argv[i] == "-n" || c.argv[i] == "netns") v.push_back(c.argv[i + 1]);
        if (c.argv[i] == "netns" && (c.argv[i + 1] == "add" || c.argv[i + 1] == "del" || c.argv[i + 1] == "exec")) {
            v.back() = c.argv[i + 2];
            ++i;
        }
    }
    return v;
}

std::map<std::string, int> machine_of_ns(const em::TestbedPlan& plan) {
    std::map<std::string, int> m;
    for (const em::Netns& n : plan.ns) m[n.name] = n.machine;
    return m;
}

}  // namespace

TEST(TestbedMachines, HostsSplitIntoContiguousSharesAndRoutersFollowTheirMembers) {
    const em::TestbedPlan plan = plan_with("das-4x2", "3");
    ASSERT_EQ(plan.machines.size(), 3u);
    std::vector<int> seen;
    for (const std::string& h : plan.hosts) seen.push_back(plan.machine_of_host(h));
    EXPECT_EQ(seen, (std::vector<int>{0, 0, 0, 1, 1, 2, 2, 2}));  // 8 hosts of one core, by their middles
    for (const em::Netns& n : plan.ns) {
        if (n.kind != em::NsKind::Router) continue;
        // das-4x2's site routers: c0 (both hosts on 0), c1 (one on 0, one on 1: the lower), c2 (one on
        // 1, one on 2), c3 (both on 2).
        const std::map<std::string, int> expected{{"c0", 0}, {"c1", 0}, {"c2", 1}, {"c3", 2}};
        EXPECT_EQ(n.machine, expected.at(n.label)) << n.name;
    }
    const em::TestbedPlan one = plan_with("das-4x2", "");
    EXPECT_EQ(one.machines.size(), 1u);
    EXPECT_TRUE(one.tunnels.empty());
    EXPECT_EQ(em::machines_summary(one), "all on this machine");
    EXPECT_EQ(em::machines_summary(plan), "hosts on 3 stand-in machines (m0: 3 hosts c0-0..c1-0, m1: 2 hosts c1-1..c2-0, m2: 3 hosts c2-1..c3-1)");
}

TEST(TestbedMachines, ExactlyTheLinksBetweenMachinesGoThroughTunnelsAndAddressesAndRoutesStayTheSame) {
    const em::TestbedPlan one = plan_with("das-4x2", ""), plan = plan_with("das-4x2", "3");
    ASSERT_EQ(plan.links.size(), one.links.size());
    std::set<int> vnis;
    int crossing = 0;
    for (std::size_t i = 0; i < plan.links.size(); ++i) {
        const em::Link& l = plan.links[i];
        const int ma = plan.ns[static_cast<std::size_t>(l.a.ns)].machine, mb = plan.ns[static_cast<std::size_t>(l.b.ns)].machine;
        EXPECT_EQ(l.a.address, one.links[i].a.address);
        EXPECT_EQ(l.b.address, one.links[i].b.address);
        if (ma == mb) {
            EXPECT_EQ(l.tunnel, -1);
            EXPECT_EQ(l.b_home, l.b.ns);
            continue;
        }
        ++crossing;
        ASSERT_GE(l.tunnel, 0);
        const em::Tunnel& t = plan.tunnels[static_cast<std::size_t>(l.tunnel)];
        EXPECT_EQ(t.link, static_cast<int>(i));
        EXPECT_EQ(t.machine_a, ma);
        EXPECT_EQ(t.machine_b, mb);
        EXPECT_EQ(l.b_home, plan.machines[static_cast<std::size_t>(ma)].tunnel_ns);
    }
    // c1's second host (machine 1) to c1's router (machine 0), c2's second (2) to c2's router (1);
    // the WAN links c0-c2, c0-c3, c1-c2, c1-c3, c2-c3: seven links cross.
    EXPECT_EQ(crossing, 7);
    for (const em::Tunnel& t : plan.tunnels) EXPECT_TRUE(vnis.insert(t.vni).second) << t.vni;
    EXPECT_EQ(plan.tunnels.size(), 7u + 2u);  // and the management bridges of machines 1 and 2
    ASSERT_EQ(plan.routes.size(), one.routes.size());
    for (std::size_t i = 0; i < plan.routes.size(); ++i) {
        EXPECT_EQ(plan.routes[i].dest, one.routes[i].dest);
        EXPECT_EQ(plan.routes[i].via, one.routes[i].via);
    }
}

TEST(TestbedMachines, EveryCommandRunsOnTheMachineOfTheNamespacesItNames) {
    const em::TestbedPlan plan = plan_with("das-4x2", "3");
    const auto where = machine_of_ns(plan);
    const em::UpScript up = em::up_commands(plan);
    std::vector<em::Command> all = up.setup;
    all.insert(all.end(), up.routes.begin(), up.routes.end());
    std::map<int, int> vxlans;  // vni -> ends made
    for (const em::Command& c : all) {
        for (const std::string& ns : namespaces_named(c)) {
            ASSERT_TRUE(where.count(ns)) << c.text();
            if (ns == plan.prefix + "u") continue;  // the stand-ins' switch: every stand-in's cable ends there
            // Moving a tunnel end out of its machine's stack names the target on the other side of
            // the move, always a namespace of the same machine.
            EXPECT_EQ(where.at(ns), c.machine) << c.text();
        }
        const auto type = std::find(c.argv.begin(), c.argv.end(), "vxlan");
        if (type == c.argv.end()) continue;
        const auto id = std::find(c.argv.begin(), c.argv.end(), "id");
        ASSERT_NE(id, c.argv.end());
        ++vxlans[std::stoi(*(id + 1))];
        const std::string local = *(std::find(c.argv.begin(), c.argv.end(), "local") + 1);
        EXPECT_EQ(local, plan.machines[static_cast<std::size_t>(c.machine)].address) << c.text();
        EXPECT_EQ(c.argv[2], plan.machines[static_cast<std::size_t>(c.machine)].underlay_ns) << c.text();
    }
    ASSERT_EQ(vxlans.size(), plan.tunnels.size());
    for (const auto& [vni, ends] : vxlans) EXPECT_EQ(ends, 2) << vni;
    for (const em::Daemon& d : up.daemons) {
        const std::string a = *(std::find(d.argv.begin(), d.argv.end(), "--netns-a") + 1);
        const std::string b = *(std::find(d.argv.begin(), d.argv.end(), "--netns-b") + 1);
        EXPECT_EQ(where.at(a), d.machine);  // both TAPs of a delay line on its machine
        EXPECT_EQ(where.at(b), d.machine);
    }
    for (const em::Daemon& d : em::host_containers(plan)) {
        const std::string net = d.argv[1].substr(std::string("--net=/run/netns/").size());
        EXPECT_EQ(where.at(net), d.machine);
    }
    // The parts add up to the whole.
    std::size_t total = 0;
    for (int k = 0; k < 3; ++k) total += em::part_of(up, k).setup.size();
    EXPECT_EQ(total, up.setup.size());
}

TEST(TestbedMachines, SshMachinesPutThisOneFirstAndTheirCommandsGoOverSsh) {
    const auto v = em::machines_from_spec("a,b,root@c", 0, fake_lookup("b"));
    ASSERT_EQ(v.size(), 3u);
    EXPECT_EQ(v[0].name, "b");
    EXPECT_TRUE(v[0].local);
    EXPECT_FALSE(v[1].local);
    EXPECT_EQ(v[2].name, "root@c");
    EXPECT_EQ(v[2].address, "10.0.0.3");
    EXPECT_TRUE(v[0].underlay_ns.empty());
    EXPECT_EQ(em::machines_spec(v), "b,a,root@c");
    // On machine 2, asked by the controller: the controller's order, entry 2 is this one.
    const auto part = em::machines_from_spec("b,a,root@c", 0, fake_lookup("z"), 2);
    EXPECT_EQ(part[0].name, "b");
    EXPECT_FALSE(part[0].local);
    EXPECT_TRUE(part[2].local);

    em::PlanOptions o;
    o.slot = 2;
    o.machines = v;
    const em::TestbedPlan plan = em::make_plan(pf::load_platform(platform_file("das-4x2")), o);
    EXPECT_EQ(em::on_machine(plan, 0, {"ip", "netns", "list"}), (std::vector<std::string>{"ip", "netns", "list"}));
    const auto remote = em::on_machine(plan, 1, {"tc", "-n", "gc2-r-c3", "qdisc", "show", "x y"});
    EXPECT_EQ(remote, (std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "a", "--",
                                                "tc -n gc2-r-c3 qdisc show 'x y'"}));
    // A real machine's tunnel ends are made in its root namespace, toward the other's address.
    for (const em::Command& c : em::up_commands(plan).setup)
        if (std::find(c.argv.begin(), c.argv.end(), "vxlan") != c.argv.end()) {
            EXPECT_EQ(c.argv[1], "link") << c.text();
            EXPECT_EQ(std::find(c.argv.begin(), c.argv.end(), "dev"), c.argv.end()) << c.text();
        }
    em::PartOptions po;
    po.gridcoll = "/opt/gc/bin/gridcoll";
    po.platform_file = "/p/das.toml";
    po.shaper = "delayline";
    po.dilation = 4;
    const auto up = em::remote_up_command(plan, 2, po);
    EXPECT_EQ(up[5], "root@c");
    EXPECT_NE(up.back().find("/opt/gc/bin/gridcoll emulate up /p/das.toml --part 2 --slot 2 --machines b,a,root@c "),
              std::string::npos) << up.back();
    EXPECT_NE(up.back().find("--dilation 4 --no-check"), std::string::npos) << up.back();
    EXPECT_EQ(up.back().find("--no-windows"), std::string::npos) << up.back();
    po.windows = false;  // the controller's choice reaches every part
    EXPECT_NE(em::remote_up_command(plan, 2, po).back().find(" --no-windows"), std::string::npos);
    EXPECT_EQ(em::remote_down_command("a", "/g", "t").back(), "/g emulate down t");
}

TEST(TestbedMachines, BadMachineListsAreClearErrors) {
    const auto l = fake_lookup("b");
    auto message = [&](const std::string& spec) {
        try {
            em::machines_from_spec(spec, 0, l);
        } catch (const gridcoll::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("0").find("1 to 16"), std::string::npos) << message("0");
    EXPECT_NE(message("17").find("1 to 16"), std::string::npos);
    EXPECT_NE(message("a,c").find("none of them is this machine"), std::string::npos);
    EXPECT_NE(message("a,b,a").find("named twice"), std::string::npos);
    EXPECT_NE(message("b,a;rm").find("is not a machine"), std::string::npos);
    EXPECT_NE(message("b,,a").find("is not a machine"), std::string::npos);
    EXPECT_NE(message("b,nohost-").find("cannot find an IPv4 address for 'nohost-'"), std::string::npos);
    EXPECT_TRUE(em::machines_from_spec("1", 0, l).empty());
    EXPECT_TRUE(em::machines_from_spec("", 0, l).empty());
}

// The controller's agent hands a host of another machine to the agent there through ssh, the
// command mpirun gave (quotes, semicolons and all) quoted once, so that the remote shell gives
// that agent exactly the text the local agent would have run. A stand-in ssh prints the words
// the remote shell parses.
TEST(TestbedMachines, TheAgentHandsAnotherMachinesHostsOverSshWithTheCommandIntact) {
    em::PlanOptions o;
    o.slot = 2;
    o.machines = em::machines_from_spec("a,b", 2, fake_lookup("b"));
    const em::TestbedPlan plan = em::make_plan(pf::load_platform(platform_file("das-4x2")), o);
    const fs::path dir = fs::temp_directory_path() / ("gc-agent-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {
        std::ofstream ssh(dir / "ssh");
        ssh << "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do [ \"$1\" = -o ] && shift; shift; done\n"
               "echo \"host=$1\"; shift\nexec sh -c \"printf '[%s]' $*\"\n";
    }
    {
        std::ofstream agent(dir / "agent");
        agent << em::rsh_agent_script(plan);
    }
    fs::permissions(dir / "ssh", fs::perms::owner_all);
    const std::string host = plan.hosts.back();  // on machine 1 ("a")
    ASSERT_EQ(plan.machine_of_host(host), 1);
    const std::string path = dir.string() + ":" + std::getenv("PATH");
    const auto r = gridcoll::sys::run_capture({"env", "PATH=" + path, "sh", (dir / "agent").string(), "-x", host, "orted",
                                               "-mca", "orte_hnp_uri", "\"12.0;tcp://198.19.0.1:5\"", "it's"});
    fs::remove_all(dir);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out, "host=a\n[" + plan.state_dir + "/rsh-agent][" + host +
                         "][orted -mca orte_hnp_uri \"12.0;tcp://198.19.0.1:5\" it's]") << r.out;
}
