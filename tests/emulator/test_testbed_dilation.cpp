// Time dilation as data: the dilated platform, auto K, the hosts' CPU quota, what the plan and
// mpirun's command line carry (nothing run).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/emulator/testbed.hpp"
#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_dilation.hpp"
#include "gridcoll/emulator/testbed_mpi.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"
#include "gridcoll/platforms/platform.hpp"

namespace em = gridcoll::emulate;
namespace pf = gridcoll::platform;

namespace {

pf::Platform das(const std::string& name = "das-4x2") {
    return pf::load_platform(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/" + name + ".toml");
}

em::TestbedPlan plan_of(const pf::Platform& p, double k, bool containers) {
    em::PlanOptions o;
    o.state_root = testing::TempDir() + "gctestbed-dilation";
    o.containers = containers;
    em::TestbedPlan plan = em::make_plan(em::dilated(p, k), o);
    plan.dilation = k;
    plan.cpu_cap = containers && k > 1;
    return plan;
}

// The plan `emulate up FILE --dilation K [--shaper SHAPER]` would bring up (nothing run).
em::TestbedPlan plan_at(const std::string& file, const std::string& k, const std::string& shaper = "auto") {
    em::TestbedOptions o;
    o.dilation = k;
    o.shaper = shaper;
    return em::Testbed::plan_only(file, o);
}

}  // namespace

TEST(TestbedDilation, EveryLinkAndCoreIsKTimesSlower) {
    const pf::Platform p = das();
    const pf::Platform d = em::dilated(p, 8);
    EXPECT_DOUBLE_EQ(d.root.link.latency_s, 8 * p.root.link.latency_s);
    EXPECT_DOUBLE_EQ(d.root.link.bandwidth_Bps, p.root.link.bandwidth_Bps / 8);
    ASSERT_FALSE(d.root.children.empty());
    EXPECT_DOUBLE_EQ(d.root.children[0].link.latency_s, 8 * p.root.children[0].link.latency_s);
    EXPECT_DOUBLE_EQ(d.root.children[0].speed_flops, p.root.children[0].speed_flops / 8);
    EXPECT_DOUBLE_EQ(em::dilated(p, 1).root.link.latency_s, p.root.link.latency_s);
}

TEST(TestbedDilation, ThePlansPathsAreDilatedAndTheirBandwidthDelayProductIsNot) {
    const pf::Platform p = das();
    const em::TestbedPlan one = plan_of(p, 1, false), four = plan_of(p, 4, false);
    const em::PathSpec a = em::path_spec(one, "c0-0", "c1-0"), b = em::path_spec(four, "c0-0", "c1-0");
    EXPECT_NEAR(b.delay_s, 4 * a.delay_s, 1e-12);
    EXPECT_NEAR(b.rate_Bps, a.rate_Bps / 4, 1e-6);
    EXPECT_EQ(one.tcp_buffer_max, four.tcp_buffer_max);
}

TEST(TestbedDilation, AutoIsThePlatformsCoresPerCoreOfThisMachine) {
    EXPECT_EQ(em::resolve_dilation("auto", das("das-4x32"), 2), 64);
    EXPECT_EQ(em::resolve_dilation("auto", das("das-4x32"), 3), 43);  // rounded up
    EXPECT_EQ(em::resolve_dilation("auto", das(), 64), 1);            // never below 1
    EXPECT_EQ(em::resolve_dilation("2.5", das(), 2), 2.5);
    for (const char* bad : {"0.5", "0", "-2", "x4", "4x", "", "nan", "1e9"})
        EXPECT_THROW(em::resolve_dilation(bad, das(), 2), gridcoll::Error) << bad;
}

TEST(TestbedDilation, AutoKeepsTheLongestDilatedRoundTripBelowTcpsInitialTimeout) {
    EXPECT_EQ(em::resolve_dilation("auto", das("das-4x32"), 2, 0.020), 33);  // 0.667 s / 20 ms
    EXPECT_EQ(em::resolve_dilation("auto", das("das-4x32"), 2, 0.001), 64);  // the cores limit
    EXPECT_EQ(em::resolve_dilation("auto", das("das-4x32"), 2, 5.0), 1);     // never below 1
    EXPECT_EQ(em::resolve_dilation("50", das("das-4x32"), 2, 0.020), 50);    // a number is kept
    // Through the plan: das-4x32's longest round trip is its WAN's, 2 x 10 ms plus the LAN hops.
    em::TestbedOptions o;
    o.dilation = "auto";
    const em::TestbedPlan plan = em::Testbed::plan_only(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x32.toml", o);
    const double per_core = em::resolve_dilation("auto", das("das-4x32"), em::machine_cores());
    EXPECT_LE(plan.dilation, std::floor(em::kDilatedRoundTripBudget_s / 0.020));
    EXPECT_GE(plan.dilation, std::min(per_core, std::floor(em::kDilatedRoundTripBudget_s / 0.021)));
    const bool noted = std::any_of(plan.notes.begin(), plan.notes.end(),
                                   [](const std::string& n) { return n.find("dilation auto") != std::string::npos; });
    EXPECT_EQ(noted, plan.dilation < per_core);
}

TEST(TestbedDilation, CpuQuotaIsCoresOverKWithAtLeastOneMillisecond) {
    for (const auto& [cores, k] : {std::pair{1, 4.0}, {1, 64.0}, {4, 2.0}, {1, 1000.0}, {2, 3.0}}) {
        const em::CpuQuota q = em::cpu_quota(cores, k);
        EXPECT_GE(q.quota_us, 1000) << cores << " " << k;
        EXPECT_NEAR(static_cast<double>(q.quota_us) / static_cast<double>(q.period_us), cores / k, 0.01 * cores / k)
            << cores << " " << k;
    }
}

TEST(TestbedDilation, ContainerisedHostsAreCappedOnlyWhenDilated) {
    const auto script = [](const em::TestbedPlan& plan) { return em::host_containers(plan).front().argv.back(); };
    const std::string undilated = script(plan_of(das(), 1, true)), dilated = script(plan_of(das(), 4, true));
    EXPECT_EQ(undilated.find("cpu.max"), std::string::npos);
    EXPECT_EQ(undilated.find("cfs_quota_us"), std::string::npos);
    EXPECT_NE(dilated.find("'25000 100000' > \"$cg/cpu.max\""), std::string::npos) << dilated;
    EXPECT_NE(dilated.find("echo 25000 > \"$cg/cpu.cfs_quota_us\""), std::string::npos) << dilated;
}

// The cap by default only where the CPU weights cannot hold hosts to cores / K: K above the
// platform's cores per core of the machine (das: 8 one-core hosts; on 2 cores, above 4).
TEST(TestbedDilation, TheCpuCapByDefaultOnlyWhereWeightsCannotEnforceIt) {
    const pf::Platform p = das();
    EXPECT_FALSE(em::cpu_capped("auto", 1, p, 2));
    EXPECT_FALSE(em::cpu_capped("auto", 4, p, 2));
    EXPECT_TRUE(em::cpu_capped("auto", 8, p, 2));
    EXPECT_TRUE(em::cpu_capped("auto", 2, p, 8));  // 8 cores: weights give each host a whole one
    EXPECT_TRUE(em::cpu_capped("on", 2, p, 2));
    EXPECT_FALSE(em::cpu_capped("on", 1, p, 2));
    EXPECT_FALSE(em::cpu_capped("off", 64, p, 2));
    EXPECT_THROW(em::cpu_capped("yes", 4, p, 2), gridcoll::Error);
}

TEST(TestbedDilation, MpirunExportsTheFactorToTheRanksOnlyWhenDilated) {
    const pf::Platform p = das();
    std::filesystem::create_directories(plan_of(p, 1, false).state_dir);
    const auto argv1 = em::prepare_mpirun(plan_of(p, 1, false), p, {}, {"true"});
    const auto argv4 = em::prepare_mpirun(plan_of(p, 4, false), p, {}, {"true"});
    const auto has = [](const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
    EXPECT_FALSE(has(argv1, "GRIDCOLL_DILATION=1"));
    EXPECT_TRUE(has(argv4, "GRIDCOLL_DILATION=4"));
    std::filesystem::remove_all(testing::TempDir() + "gctestbed-dilation");
}

TEST(TestbedDilation, ADilatedTestbedHasNoMoreDelayLinesThanTheUndilatedOne) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x32.toml";
    const auto delay_lines = [&](const std::string& k) {
        const em::TestbedPlan plan = plan_at(file, k, "delayline");
        EXPECT_EQ(plan.dilation, k == "1" ? 1 : 16);
        return std::count_if(plan.links.begin(), plan.links.end(), [](const em::Link& l) { return l.shaper == em::Shaper::DelayLine; });
    };
    const auto undilated = delay_lines("1");
    EXPECT_GT(undilated, 0);
    EXPECT_EQ(delay_lines("16"), undilated);
}

TEST(TestbedDilation, TheDelayLinesQueueHoldsTheUndilatedBytes) {
    // K times slower and a K times longer wait: the same ~100 KB of the 1 MB/s WAN at 1 and x16
    // (not the delay line's default 1000 frames, 1.5 s of that WAN).
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml";
    const auto limits_of = [&](const std::string& k) {
        std::vector<std::string> limits;
        for (const em::Daemon& d : em::up_commands(plan_at(file, k, "delayline")).daemons) {
            const auto ab = std::find(d.argv.begin(), d.argv.end(), "--ab");
            if (ab != d.argv.end() && ab + 1 != d.argv.end()) limits.push_back(ab[1].substr(ab[1].find("limit=")));
        }
        return limits;
    };
    const std::vector<std::string> wan(6, "limit=98K,order=any,acks=skip");  // 4 sites, full mesh: the WAN links only
    EXPECT_EQ(limits_of("1"), wan);
    EXPECT_EQ(limits_of("16"), wan);
}

TEST(TestbedDilation, DilatedHostsUseRenoUndilatedCubic) {
    const std::string file = std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/das-4x2.toml";
    const auto congestion_sysctls = [&](const std::string& k, const std::string& name) {
        const em::TestbedPlan plan = plan_at(file, k);
        EXPECT_EQ(plan.tcp_congestion, name) << "dilation " << k;
        int n = 0;
        for (const em::Command& c : em::up_commands(plan).setup)
            n += std::find(c.argv.begin(), c.argv.end(), "net.ipv4.tcp_congestion_control=" + name) != c.argv.end();
        return n;
    };
    EXPECT_EQ(congestion_sysctls("1", "cubic"), 8);  // every host of das-4x2
    EXPECT_EQ(congestion_sysctls("16", "reno"), 8);
}
