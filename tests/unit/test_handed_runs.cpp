// A packed broadcast on trees of one rate handing its streams to one member at a time
// (algorithms/packing/out_runs.cpp, OutTrees::hand_runs; the method key runs=N or runs=auto):
//   - correct (the checker) from a root in every site, with uneven sites, 1 to 4 runs and a
//     message that does not divide evenly;
//   - the WAN pieces into a site are taken in by as many of its members as there are runs, at
//     most all of them (one sink a site without runs);
//   - the rule (handed_runs) picks more runs for more bytes, at most the largest site's members,
//     and none where the LAN's speed is unknown.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "packing/out_trees.hpp"
#include "packing/unit_trees.hpp"
#include "site_graphs.hpp"

using namespace gridcoll;
using namespace gridcoll::detail;
using namespace gridcoll::test;

namespace {

const std::vector<int> kSizes{2, 3, 1, 2, 4, 3};

// The ranks of `site` that receive from ranks outside it in the packed broadcast of `runs` runs.
std::set<int> wan_receivers(const Topology& t, Request r, int runs, int site) {
    r.params.runs = runs;
    std::set<int> got;
    int first = 0;
    for (int s = 0; s < site; ++s) first += kSizes[static_cast<std::size_t>(s)];
    for (int rank = first; rank < first + kSizes[static_cast<std::size_t>(site)]; ++rank) {
        r.rank = rank;
        const Schedule s = build_schedule(r, "packed");
        for (const Step& st : s.steps())
            if (st.op == Op::Recv && t.cluster(st.peer, 1) != t.cluster(rank, 1)) got.insert(rank);
    }
    return got;
}

}  // namespace

TEST(HandedRuns, CorrectFromEveryRootWithUnevenSites) {
    const Topology t = sites_on(kSizes, uneven_mesh());
    ASSERT_NE(taken_unit_bcast_trees(graph_of_links(6, uneven_mesh()), 0, 1 << 20, 0), nullptr)
        << "the broadcasts below would not take trees of one rate";
    const std::vector<int> runs{0, 2, 3, 4, MethodParams::kAutoRuns};
    const int checked = check_packed_from_every_site(t, kSizes, (1 << 20) + 3 * 1000 + 1, 5,
                                                     [&](Request& r, int k) { r.params.runs = runs[static_cast<std::size_t>(k)]; });
    EXPECT_EQ(checked, 30);
}

TEST(HandedRuns, EveryMemberTakesItsRunsWanPieces) {
    const Topology t = sites_on(kSizes, uneven_mesh());
    const Request r = bcast_request(t, 1 << 20, 0);
    EXPECT_EQ(wan_receivers(t, r, 0, 4).size(), 1u) << "one sink a site by default";
    EXPECT_EQ(wan_receivers(t, r, 1, 4).size(), 1u);
    EXPECT_EQ(wan_receivers(t, r, 2, 4).size(), 2u);
    EXPECT_EQ(wan_receivers(t, r, 4, 4).size(), 4u);
    EXPECT_EQ(wan_receivers(t, r, 4, 1).size(), 3u) << "a site of three members";
    // Run q's handler is the site's q-th member in turn: four runs on a site of two, two each.
    EXPECT_EQ(wan_receivers(t, r, 4, 3).size(), 2u);
}

TEST(HandedRuns, TheRuleTakesMoreForMoreBytesUpToTheMembers) {
    const SiteGraph g = graph_of_links(6, uneven_mesh());
    const auto p = taken_unit_bcast_trees(g, 0, 16e6, 0);
    ASSERT_NE(p, nullptr);
    const RootTrees& trees = p->roots.front();
    int last = 1;
    for (double mib : {0.25, 1.0, 4.0, 16.0, 64.0}) {
        const int runs = handed_runs(g, trees, static_cast<std::uint64_t>(mib * (1 << 20)), 0, 5e7, 4);
        EXPECT_GE(runs, last) << mib << " MiB";
        EXPECT_LE(runs, 4) << mib << " MiB";
        last = runs;
    }
    EXPECT_EQ(last, 4) << "64 MiB: runs of seconds";
    EXPECT_EQ(handed_runs(g, trees, 1 << 18, 0, 5e7, 4), 1) << "a quarter MiB: runs too short to hand";
    EXPECT_EQ(handed_runs(g, trees, 64 << 20, 0, 0.0, 4), 1) << "the LAN's speed unknown";
    EXPECT_EQ(handed_runs(g, trees, 64 << 20, 0, 5e7, 1), 1) << "sites of one member";
}
