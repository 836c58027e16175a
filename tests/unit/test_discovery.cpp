// Topology discovery (gridcoll/discovery.hpp) on synthetic networks whose round-trip times come
// from a known Topology: the search must give back that Topology's groups, with few pairs timed,
// through noise, and say which pairs were near a class boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gridcoll/algorithms/discovery.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/random_topology.hpp"

using namespace gridcoll;

namespace {

// Round trip = twice the one-way latency of the deepest level two ranks share: 4x less per level
// down, so every level is its own distance class.
discovery::Probe hierarchy_probe(const Topology& t, long* calls = nullptr) {
    return [&t, calls](int a, int b, std::uint64_t, int) {
        if (calls) ++*calls;
        const int l = t.common_level(a, b);
        return 2e-6 * std::pow(4.0, t.levels() - l);
    };
}

// sites x nodes x cores, block placement: levels net, site, node.
Topology grid(int sites, int nodes, int cores) {
    std::vector<std::vector<int>> ids;
    for (int s = 0; s < sites; ++s)
        for (int n = 0; n < nodes; ++n)
            for (int c = 0; c < cores; ++c) ids.push_back({0, s, s * nodes + n});
    return Topology(ids, {"net", "site", "node"});
}

TEST(Discovery, FindsEveryLevelOfAUniformHierarchy) {
    const Topology truth = grid(4, 8, 2);
    const auto res = discovery::discover(truth.size(), hierarchy_probe(truth));
    const auto cmp = discovery::compare_partitions(truth, res.topology);
    EXPECT_TRUE(discovery::same_partitions(cmp)) << res.topology.to_text();
    EXPECT_FALSE(res.flat);
    EXPECT_EQ(res.topology.levels(), 3);
    ASSERT_EQ(res.levels.size(), 3u);
    EXPECT_EQ(res.levels[1].clusters, 4);
    EXPECT_EQ(res.levels[2].clusters, 32);
    EXPECT_DOUBLE_EQ(res.levels[2].rtt_s, 2e-6 * 4);  // node level: common level 2 of 3
    EXPECT_TRUE(res.ambiguous.empty());
}

TEST(Discovery, ThirtyTwoSitesCostUnderFivePercentOfAllPairs) {
    const Topology truth = grid(32, 32, 1);
    const auto res = discovery::discover(truth.size(), hierarchy_probe(truth));
    EXPECT_TRUE(discovery::same_partitions(discovery::compare_partitions(truth, res.topology)));
    const double all = 1024.0 * 1023 / 2;
    EXPECT_LT(res.pairs_timed, 0.05 * all) << res.pairs_timed << " pairs";
    EXPECT_GT(res.pairs_timed, 1023);  // at least every rank once
}

TEST(Discovery, RandomShapesWithoutTheHomogeneityAssumption) {
    discovery::Options o;
    o.assume_homogeneous = false;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        const Topology truth = random_topology(3 + static_cast<int>(seed % 29), seed);
        const auto res = discovery::discover(truth.size(), hierarchy_probe(truth), o);
        EXPECT_TRUE(discovery::same_groups(truth, res.topology)) << "seed " << seed << ": " << describe(truth) << "\n"
                                                                 << res.topology.to_text();
    }
}

TEST(Discovery, UnequalWanLinksStayOneLevel) {
    // Three sites of 4 ranks; site pairs at 30, 60 and 80 ms RTT (geo-dc's triangle). Paper 003's
    // rule alone would put the two closest sites in a group of their own.
    const Topology truth = grid(3, 2, 2);
    const double wan[3][3] = {{0, 30e-3, 80e-3}, {30e-3, 0, 60e-3}, {80e-3, 60e-3, 0}};
    const discovery::Probe probe = [&](int a, int b, std::uint64_t, int) {
        const int sa = truth.cluster(a, 1), sb = truth.cluster(b, 1);
        if (sa != sb) return wan[sa][sb];
        return truth.cluster(a, 2) == truth.cluster(b, 2) ? 2e-6 : 40e-6;
    };
    const auto res = discovery::discover(truth.size(), probe);
    EXPECT_TRUE(discovery::same_partitions(discovery::compare_partitions(truth, res.topology))) << res.topology.to_text();
}

TEST(Discovery, NoiseThatOnlyAddsLatencyIsFilteredByTheMinimum) {
    const Topology truth = grid(3, 4, 2);
    std::mt19937_64 rng(7);
    std::exponential_distribution<double> extra(1.0);
    const discovery::Probe probe = [&](int a, int b, std::uint64_t, int reps) {
        const double base = 2e-6 * std::pow(4.0, 3 - truth.common_level(a, b));
        double best = 1e9;
        for (int i = 0; i < reps; ++i) {
            const double x = extra(rng);  // heavy-tailed: sometimes several times the base
            best = std::min(best, base * (1 + (x > 1.5 ? x : 0.02 * x)));
        }
        return best;
    };
    const auto res = discovery::discover(truth.size(), probe);
    EXPECT_TRUE(discovery::same_partitions(discovery::compare_partitions(truth, res.topology))) << res.topology.to_text();
}

// Two groups of four at the same latency, 100 MB/s inside a group and 10 MB/s between them:
// small messages see one flat group; the bandwidth search with large messages splits it. With
// the search off, or every pair at one bandwidth, nothing is split.
TEST(Discovery, EqualLatencyLevelsAreToldApartByBandwidth) {
    const auto probe_of = [](double across_Bps) {
        return discovery::Probe([across_Bps](int a, int b, std::uint64_t bytes, int) {
            const double bw = a / 4 == b / 4 ? 100e6 : across_Bps;
            return 2 * (20e-6 + static_cast<double>(bytes) / bw);
        });
    };
    std::vector<std::vector<int>> ids;
    for (int r = 0; r < 8; ++r) ids.push_back({0, r / 4});
    const Topology truth(ids, {"net", "group"});
    const auto res = discovery::discover(8, probe_of(10e6));
    EXPECT_TRUE(discovery::same_partitions(discovery::compare_partitions(truth, res.topology))) << res.topology.to_text();
    EXPECT_GT(res.bandwidth_pairs, 0);
    ASSERT_EQ(res.levels.size(), 2u);
    EXPECT_NEAR(res.levels[0].bandwidth_Bps, 10e6, 1e3);   // the link between the groups
    EXPECT_NEAR(res.levels[1].bandwidth_Bps, 100e6, 1e4);  // inside a group
    discovery::Options off;
    off.split_bytes = 0;
    EXPECT_TRUE(discovery::discover(8, probe_of(10e6), off).flat);
    const auto same = discovery::discover(8, probe_of(100e6));
    EXPECT_TRUE(same.flat);
    EXPECT_GT(same.bandwidth_pairs, 0);
}

// Three bandwidth groups A = {0, 1}, B = {2, 3}, C = {4, 5} at one latency, in a line: A-B and
// B-C at 20 MB/s, A-C at 10 MB/s. From rank 0 the search nests {A, B} inside {A, B, C}; seen
// from C, A and B differ, so the module check (with the same large messages) dissolves it.
TEST(Discovery, BandwidthGroupsAreModuleChecked) {
    const discovery::Probe probe = [](int a, int b, std::uint64_t bytes, int) {
        const int ga = a / 2, gb = b / 2;
        const double bw = ga == gb ? 100e6 : std::abs(ga - gb) == 1 ? 20e6 : 10e6;
        return 2 * (20e-6 + static_cast<double>(bytes) / bw);
    };
    std::vector<std::vector<int>> ids;
    for (int r = 0; r < 6; ++r) ids.push_back({0, r / 2});
    const Topology truth(ids, {"net", "group"});
    const auto res = discovery::discover(6, probe);
    EXPECT_TRUE(discovery::same_partitions(discovery::compare_partitions(truth, res.topology))) << res.topology.to_text();
    EXPECT_EQ(res.topology.levels(), 2);
}

TEST(Discovery, PairsNearTheThresholdAreLookedAtAgainAndReported) {
    // Ranks 0-3: 0-1 and 2-3 at 10 us, across 12.1 us (just above 20 %): ambiguous.
    const discovery::Probe probe = [](int a, int b, std::uint64_t, int) { return a / 2 == b / 2 ? 10e-6 : 12.1e-6; };
    const auto res = discovery::discover(4, probe);
    EXPECT_GT(res.second_looks, 0);
    ASSERT_FALSE(res.ambiguous.empty());
    EXPECT_NEAR(res.ambiguous.front().rtt_s, 12.1e-6, 1e-12);
}

TEST(Discovery, NoStructureIsFlatAndOneRankIsTrivial) {
    const auto flat = discovery::discover(6, [](int, int, std::uint64_t, int) { return 50e-6; });
    EXPECT_TRUE(flat.flat);
    EXPECT_TRUE(discovery::discover(1, [](int, int, std::uint64_t, int) { return 1.0; }).flat);
    EXPECT_THROW(discovery::discover(0, [](int, int, std::uint64_t, int) { return 1.0; }), Error);
    discovery::Options bad;
    bad.threshold = 0;
    EXPECT_THROW(discovery::discover(4, [](int, int, std::uint64_t, int) { return 1.0; }, bad), Error);
}

TEST(Discovery, ComparisonSeesAWrongLevelAndIgnoresSingletonLevels) {
    const Topology truth = grid(2, 2, 1);  // node level: singletons
    const Topology two_levels({{0, 0}, {0, 0}, {0, 1}, {0, 1}}, {"net", "site"});
    EXPECT_TRUE(discovery::same_partitions(discovery::compare_partitions(truth, two_levels)));
    const Topology wrong({{0, 0}, {0, 1}, {0, 0}, {0, 1}}, {"net", "site"});
    const auto cmp = discovery::compare_partitions(truth, wrong);
    EXPECT_FALSE(discovery::same_partitions(cmp));
    EXPECT_THROW(discovery::compare_partitions(truth, Topology::flat(3)), Error);
}

}  // namespace
