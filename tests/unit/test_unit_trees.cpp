// Trees of one rate (algorithms/packing/unit_trees.*):
//   - on the shipped mixed-wan-5x16's WAN (a full mesh of 1 and 2 MB/s links) every site gets
//     three trees of 0.5 MB/s that meet the allgather's cut bound exactly, and fit every link;
//   - on random partial meshes, out-, in- and both-ways packings, where found, fit every link
//     (both directions for Way::Both), span the sites from their roots, carry one rate, keep to
//     the trees asked for, and are no faster than the bound; most graphs have one;
//   - none beyond 16 sites, and none for shares of a few pieces (plan_unit_trees);
//   - the packed allgather(v), reduce-scatter(_block) and allreduce that take them on a full mesh
//     of uneven links are correct (the checker), with uneven sites and every count pattern;
//   - shards=cut sizes the allreduce's shards to the sites' capacity in (the least connected the
//     largest), predicted faster than equal shards on the mixed mesh, and correct;
//   - the broadcast takes them where every two-hop share crosses a slow link (not on the mixed
//     mesh, whose two-hop shares meet the bound), and is correct from a root in every site.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "packing/packing.hpp"
#include "packing/unit_trees.hpp"
#include "site_graphs.hpp"

using namespace gridcoll;
using namespace gridcoll::detail;
using namespace gridcoll::test;

namespace {

// mixed-wan-5x16's WAN: every link of sites 1 and 2 at 2 MB/s, the others at 1 MB/s.
std::vector<UndirectedLink> mixed_mesh() {
    std::vector<UndirectedLink> v;
    for (int a = 0; a < 5; ++a)
        for (int b = a + 1; b < 5; ++b) v.push_back({a, b, 0.01, (a == 1 || a == 2 || b == 1 || b == 2) ? 2 * kB : kB});
    return v;
}

std::vector<Demand> every_site(int n, double bytes, Way w, std::mt19937* uneven = nullptr) {
    std::vector<Demand> d;
    for (int s = 0; s < n; ++s) d.push_back({s, uneven ? bytes * static_cast<double>(1 + (*uneven)() % 3) : bytes, w});
    return d;
}

}  // namespace

TEST(UnitTrees, MixedMeshMeetsItsCutBoundWithThreeTreesASite) {
    const SiteGraph g = graph_of_links(5, mixed_mesh());
    const auto p = unit_trees(g, every_site(5, 1e6, Way::Out), 4);
    ASSERT_TRUE(p.has_value());
    expect_feasible(g, *p, "mixed mesh");
    const double bound = spread_time_bound(g, std::vector<double>(5, 1e6));
    for (const RootTrees& rt : p->roots) {
        EXPECT_EQ(rt.trees.size(), 3u) << "site " << rt.root;
        for (const SiteTree& t : rt.trees) EXPECT_NEAR(t.rate, 0.5 * kB, 1e-6);
        EXPECT_NEAR(rt.bytes / rt.rate(), bound, bound * 1e-9) << "site " << rt.root;
    }
}

TEST(UnitTrees, FitEveryLinkAndSpanTheSitesOnRandomGraphs) {
    std::mt19937 rng(17);
    int found = 0, tried = 0;
    for (int k = 0; k < 12; ++k) {
        const int n = 4 + k % 6;
        const SiteGraph g = graph_of_links(n, partial_mesh(n, n, rng));
        for (Way w : {Way::Out, Way::In, Way::Both}) {
            const std::vector<Demand> d = every_site(n, 1e6, w, &rng);
            const int most = 1 + static_cast<int>(rng() % 4);
            const auto p = unit_trees(g, d, most);
            ++tried;
            if (!p) continue;
            ++found;
            const std::string what = "graph " + std::to_string(k) + " way " + std::to_string(static_cast<int>(w));
            expect_feasible(g, *p, what);
            std::vector<double> bytes;
            for (const Demand& x : d) bytes.push_back(x.bytes);
            const double bound = spread_time_bound(w == Way::In ? reversed(g) : g, bytes);
            const double rate = p->roots.front().trees.front().rate;
            double slowest = 0;
            for (const RootTrees& rt : p->roots) {
                EXPECT_EQ(rt.way, w) << what;
                EXPECT_GE(static_cast<int>(rt.trees.size()), 1) << what;
                EXPECT_LE(static_cast<int>(rt.trees.size()), most) << what;
                for (const SiteTree& t : rt.trees) EXPECT_NEAR(t.rate, rate, rate * 1e-9) << what;
                slowest = std::max(slowest, rt.bytes / rt.rate());
            }
            // Both ways: each link's two directions carry in- and out-flows (expect_feasible).
            if (w != Way::Both) {
                EXPECT_GE(slowest, bound * (1 - 1e-9)) << what << ": faster than the bound";
            }
        }
    }
    EXPECT_GE(found * 2, tried) << "trees of one rate found for " << found << " of " << tried << " packings";
}

TEST(UnitTrees, NoneBeyondSixteenSitesNorForSharesOfAFewPieces) {
    EXPECT_FALSE(unit_trees(graph_of_links(17, mesh(17)), every_site(17, 1e6, Way::Out), 4).has_value());
    const SiteGraph g = graph_of_links(5, mixed_mesh());
    EXPECT_NE(plan_unit_trees(g, every_site(5, 3 * 64 * 1024.0, Way::Out), 4), nullptr);
    EXPECT_EQ(plan_unit_trees(g, every_site(5, 3 * 8 * 1024.0, Way::Out), 4), nullptr);
    // The plan is cached on the proportions: the same trees at another scale, with its bytes.
    const auto big = plan_unit_trees(g, every_site(5, 1e7, Way::Out), 4);
    ASSERT_NE(big, nullptr);
    EXPECT_EQ(big->roots.front().bytes, 1e7);
    EXPECT_EQ(big->roots.front().trees.size(), 3u);
}

TEST(UnitTrees, PackedMethodsTakingThemAreCorrect) {
    const Topology t = sites_on({2, 3, 1, 2, 2}, mixed_mesh());
    const SiteGraph g = graph_of_links(5, mixed_mesh());
    const std::uint64_t block = 64 * 1024;
    std::vector<Demand> spread;
    for (int s : {2, 3, 1, 2, 2}) spread.push_back({static_cast<int>(spread.size()), static_cast<double>(block) * s, Way::Out});
    ASSERT_NE(plan_unit_trees(g, spread, 4), nullptr) << "the sizes below would not take trees of one rate";
    std::vector<Demand> shards;
    for (int s = 0; s < 5; ++s) shards.push_back({s, 640 * 1024 / 5.0, Way::Both});
    ASSERT_NE(plan_unit_trees(g, shards, 4), nullptr) << "the allreduce below would not take trees of one rate";
    const CountPattern patterns[] = {CountPattern::Even, CountPattern::Ramp, CountPattern::Zeros};
    int checked = 0;
    for (Collective coll : {Collective::Allgather, Collective::Allgatherv, Collective::ReduceScatter, Collective::ReduceScatterBlock,
                            Collective::Allreduce})
        for (CountPattern pattern : patterns) {
            if (!is_irregular(coll) && pattern != CountPattern::Even) continue;
            Request r;
            r.coll = coll;
            r.size = t.size();
            r.elem = is_reduction(coll) ? 4 : 1;
            r.bytes = coll == Collective::Allreduce ? 640 * 1024 : block;
            r.topology = &t;
            r.counts = make_counts(coll, t.size(), r.bytes, r.elem, pattern);
            const CheckResult res = check_algorithm(r, "packed");
            ++checked;
            ASSERT_TRUE(res.ok) << to_string(coll) << ": " << res.error;
        }
    EXPECT_EQ(checked, 9);
}

TEST(UnitTrees, BroadcastTakesThemWhereTwoHopSharesCrossSlowLinks) {
    const SiteGraph uneven = graph_of_links(6, uneven_mesh()), mixed = graph_of_links(5, mixed_mesh());
    EXPECT_NEAR(two_hop_rate(uneven, 0), 5 * kB, 1e-6);
    EXPECT_NEAR(two_hop_rate(mixed, 0), 6 * kB, 1e-6);
    const auto p = taken_unit_bcast_trees(uneven, 0, 4e6, 0);
    ASSERT_NE(p, nullptr);
    expect_feasible(uneven, *p, "uneven mesh");
    EXPECT_GE(p->roots.front().rate(), kUnitBcastGain * two_hop_rate(uneven, 0));
    EXPECT_LE(p->roots.front().rate(), 11 * kB * (1 + 1e-9));  // the least cut around site 0
    EXPECT_EQ(taken_unit_bcast_trees(mixed, 0, 4e6, 0), nullptr);
    EXPECT_EQ(taken_unit_bcast_trees(uneven, 0, kUnitBcastTreeBytes * static_cast<double>(p->roots.front().trees.size()) - 1, 0),
              nullptr) << "too few bytes for so many trees";

    ASSERT_NE(taken_unit_bcast_trees(uneven, 0, 1 << 20, 0), nullptr) << "the broadcasts below would not take them";
    const std::vector<int> sizes{2, 3, 1, 2, 2, 3};
    const Topology t = sites_on(sizes, uneven_mesh());
    int root = 0;
    for (int site = 0; site < 6; root += sizes[static_cast<std::size_t>(site++)]) {
        Request r;
        r.coll = Collective::Bcast;
        r.size = t.size();
        r.bytes = 1 << 20;
        r.root = root + sizes[static_cast<std::size_t>(site)] - 1;
        r.topology = &t;
        const CheckResult res = check_algorithm(r, "packed");
        ASSERT_TRUE(res.ok) << "root " << r.root << ": " << res.error;
    }
}

// shards=cut: on the mixed mesh the sites without 2 MB/s links (0, 3, 4) take in the least, so
// they own more of the vector than sites 1 and 2; the planner predicts less time than for equal
// shards; and the packed allreduce takes them (its messages differ from equal shards') and is
// correct on uneven sites, with more trees a site allowed or fewer. None on a partial mesh or a
// mesh of equal links.
TEST(UnitTrees, CutShardsFollowTheSitesCapacityIn) {
    const SiteGraph g = graph_of_links(5, mixed_mesh());
    const std::vector<double> k = unit_shard_counts(g, kUnitShardTrees);
    ASSERT_EQ(k.size(), 5u);
    for (int slow : {0, 3, 4})
        for (int fast : {1, 2}) EXPECT_GT(k[static_cast<std::size_t>(slow)], k[static_cast<std::size_t>(fast)]) << slow << " " << fast;
    const double v = 4 * 1024 * 1024;
    const std::vector<Demand> cut = cut_shard_demands(g, v, kUnitShardTrees);
    ASSERT_EQ(cut.size(), 5u);
    EXPECT_NEAR(cut[0].bytes + cut[1].bytes + cut[2].bytes + cut[3].bytes + cut[4].bytes, v, 1e-6);
    const auto pc = taken_unit_trees(g, cut, 0, kUnitShardTrees);
    const auto pe = taken_unit_trees(g, every_site(5, v / 5, Way::Both), 0, kUnitShardTrees);
    ASSERT_NE(pc, nullptr);
    ASSERT_NE(pe, nullptr);
    expect_feasible(g, *pc, "cut shards");
    EXPECT_LT(pc->seconds(g), pe->seconds(g) * 0.95);
    EXPECT_TRUE(unit_shard_counts(graph_of_links(4, mesh(4)), kUnitShardTrees).empty()) << "equal links";
    std::mt19937 rng(7);
    EXPECT_TRUE(unit_shard_counts(graph_of_links(7, partial_mesh(7, 3, rng)), kUnitShardTrees).empty()) << "a partial mesh";
    const auto sends = [](const Request& r) {
        std::vector<std::pair<int, std::uint64_t>> out;
        const Schedule built = find_algorithm(Collective::Allreduce, "packed").build(r);
        for (const Step& st : built.steps())
            if (st.op == Op::Send) out.emplace_back(st.peer, st.src.len);
        return out;
    };
    for (const auto& [sizes, links] : {std::pair{std::vector<int>{2, 3, 1, 2, 2}, mixed_mesh()},
                                       std::pair{std::vector<int>{1, 2, 1, 3, 1, 2}, uneven_mesh()}})
        for (int trees : {0, 2}) {
            const Topology t = sites_on(sizes, links);
            Request r;
            r.coll = Collective::Allreduce;
            r.size = t.size();
            r.elem = 4;
            r.bytes = 1 << 20;
            r.topology = &t;
            r.params.trees = trees;
            const auto equal_sends = sends(r);
            r.params.cut_shards = true;
            EXPECT_NE(sends(r), equal_sends) << sizes.size() << " sites, trees=" << trees << ": shards=cut changed nothing";
            const CheckResult res = check_algorithm(r, "packed");
            EXPECT_TRUE(res.ok) << sizes.size() << " sites, trees=" << trees << ": " << res.error;
        }
}
