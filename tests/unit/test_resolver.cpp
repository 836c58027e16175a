// The one resolver (gridcoll/algorithms/resolver.hpp): each step of its order, each reason, and
// the guards that hand a call to the MPI library.
#include <gtest/gtest.h>

#include <memory>

#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/resolver.hpp"

namespace gridcoll {
namespace {

// das-4x2's rank map: 4 sites of 2 ranks, WAN 10 ms 1 MB/s, LAN 20 us 50 MB/s.
std::shared_ptr<const Topology> das4x2() {
    return std::make_shared<const Topology>(Topology::from_text(
        "levels wan lan node\nlink 0 0.01 1e6\nlink 1 2e-5 5e7\n"
        "rank 0 0 0 0\nrank 1 0 0 1\nrank 2 0 1 2\nrank 3 0 1 3\nrank 4 0 2 4\nrank 5 0 2 5\nrank 6 0 3 6\nrank 7 0 3 7\n",
        "das-4x2"));
}

Operation op(Collective c, std::uint64_t bytes, const char* method = "auto", std::shared_ptr<const Topology> t = das4x2()) {
    Operation o;
    o.coll = c;
    o.ranks = t ? t->size() : 8;
    o.bytes = bytes;
    o.method = parse_method(c, method);
    o.topology = std::move(t);
    return o;
}

TEST(Resolver, AskedMethodComesBackAsItIs) {
    const Resolution r = resolve(op(Collective::Bcast, 1024, "kary:k=4:seg=64K"), ResolverSettings{});
    EXPECT_EQ(to_string(r.method), "kary:k=4:seg=64K");
    EXPECT_EQ(r.named, r.method);
    EXPECT_EQ(r.choice, "");
}

TEST(Resolver, AutoWithoutRulesIsTheBuiltinDecision) {
    const Resolution small = resolve(op(Collective::Bcast, 1024), ResolverSettings{});
    EXPECT_EQ(small.method.algorithm, "leaders");
    EXPECT_EQ(small.choice, "auto:builtin");
    EXPECT_EQ(small.reason, "builtin: sites joined by a WAN");
    EXPECT_EQ(resolve(op(Collective::Barrier, 0), ResolverSettings{}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Allreduce, 8), ResolverSettings{}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Bcast, 1 << 20), ResolverSettings{}).method.algorithm, "wanstream");
    // das-4x2's sites hold two ranks: a WAN message of `paired` would merge only two blocks.
    const Resolution pairs = resolve(op(Collective::Alltoall, 8), ResolverSettings{});
    EXPECT_TRUE(pairs.native());
    EXPECT_EQ(pairs.reason, "builtin: between WAN sites the MPI library's own is faster here");
    // A site of three (the others of one and two): paired up to 1 KiB blocks, then the MPI library's own.
    const auto three = std::make_shared<const Topology>(Topology::from_text(
        "levels wan lan node\nlink 0 0.01 1e6\nlink 1 2e-5 5e7\n"
        "rank 0 0 0 0\nrank 1 0 0 1\nrank 2 0 0 2\nrank 3 0 1 3\nrank 4 0 2 4\nrank 5 0 2 5\n",
        "three"));
    EXPECT_EQ(resolve(op(Collective::Alltoall, 8, "auto", three), ResolverSettings{}).method.algorithm, "paired");
    EXPECT_EQ(resolve(op(Collective::Alltoall, 1024, "auto", three), ResolverSettings{}).method.algorithm, "paired");
    EXPECT_TRUE(resolve(op(Collective::Alltoall, 16 * 1024, "auto", three), ResolverSettings{}).native());
    const Resolution a2a = resolve(op(Collective::Alltoall, 1 << 20), ResolverSettings{});
    EXPECT_EQ(a2a.method.algorithm, "linear");
    EXPECT_EQ(a2a.choice, "auto:builtin");
    const Resolution scatter = resolve(op(Collective::Scatter, 8), ResolverSettings{});  // MPI's own below 256 KiB
    EXPECT_TRUE(scatter.native());
    EXPECT_EQ(scatter.choice, "auto:builtin");
}

TEST(Resolver, BuiltinGivesTheMpiLibraryFlatOneSiteAndLanTopologies) {
    const Resolution flat = resolve(op(Collective::Barrier, 0, "auto", std::make_shared<const Topology>(Topology::flat(8))), {});
    EXPECT_TRUE(flat.native());
    EXPECT_EQ(flat.reason, "builtin: the Topology is flat");
    const auto one_site = std::make_shared<const Topology>(Topology::from_text(
        "levels wan lan node\nrank 0 0 0 0\nrank 1 0 0 0\nrank 2 0 0 1\nrank 3 0 0 1\n", "one-site"));
    EXPECT_EQ(resolve(op(Collective::Allreduce, 8, "auto", one_site), {}).reason, "builtin: one site");
    // Bridged segments: the "sites" are 400 us apart, their members 500 us: no WAN.
    const auto lan = std::make_shared<const Topology>(Topology::from_text(
        "levels lan seg\nlink 0 4e-4 1.25e6\nlink 1 5e-4 1.25e6\nrank 0 0 0\nrank 1 0 0\nrank 2 0 1\nrank 3 0 1\n", "lan"));
    const Resolution r = resolve(op(Collective::Barrier, 0, "auto", lan), {});
    EXPECT_TRUE(r.native());
    EXPECT_EQ(r.reason, "builtin: site links (400 us) within 10x of the links below them (500 us)");
}

TEST(Resolver, WhereTheMpiLibraryCannotRunTheFixedDefaultStandsIn) {
    const Resolution r = resolve(op(Collective::Scatter, 8), rules_settings("", false));  // MPI's own below 256 KiB
    EXPECT_EQ(r.method, model::default_method(Collective::Scatter));
    EXPECT_EQ(r.choice, "auto:builtin");
    EXPECT_NE(r.reason.find("not modelled here"), std::string::npos) << r.reason;
}

TEST(Resolver, AutoTakesTheCoveringRuleAndNamesItsLine) {
    ResolverSettings s;
    s.rules = model::parse_rules("# two bands\nbcast bytes 0-1023 linear\nbcast bytes 1024-* kary:k=3:seg=8K\n", "r.rules");
    s.rules_origin = "r.rules";
    const Resolution small = resolve(op(Collective::Bcast, 100), s);
    EXPECT_EQ(small.method.algorithm, "linear");
    EXPECT_EQ(small.choice, "auto:rules");
    EXPECT_EQ(small.reason, "rules r.rules:2");
    EXPECT_EQ(to_string(resolve(op(Collective::Bcast, 1 << 20), s).method), "kary:k=3:seg=8K");
    const Resolution none = resolve(op(Collective::Reduce, 100), s);  // no rule for reduce
    EXPECT_EQ(none.choice, "auto:builtin");
    EXPECT_EQ(none.reason.rfind("no rule in r.rules; ", 0), 0u) << none.reason;
}

TEST(Resolver, PlainTwolayerIsMadeExplicitButRowsKeepItsName) {
    const Resolution r = resolve(op(Collective::Bcast, 1 << 20, "twolayer"), ResolverSettings{});
    EXPECT_EQ(r.named.algorithm, "twolayer");
    EXPECT_TRUE(r.named.params.levels.empty());
    ASSERT_EQ(r.method.params.levels.size(), 2u);  // the optimiser's [kary|kary]
    EXPECT_EQ(r.choice, "plogp:" + to_string(r.method));
    // Without link numbers there is nothing to optimise: it stays plain.
    const auto bare = std::make_shared<const Topology>(Topology::from_text(
        "levels wan lan\nrank 0 0 0\nrank 1 0 0\nrank 2 0 1\nrank 3 0 1\n", "bare"));
    const Resolution plain = resolve(op(Collective::Bcast, 1 << 20, "twolayer", bare), ResolverSettings{});
    EXPECT_TRUE(plain.method.params.levels.empty());
    EXPECT_EQ(plain.choice, "");
}

ResolverSettings pmpi_like() {
    ResolverSettings s;
    s.native_fallback = true;
    return s;
}

TEST(Resolver, MinBytesSendsSmallMessagesButNotBarriersToTheMpiLibrary) {
    ResolverSettings s = pmpi_like();
    s.min_bytes = 64 * 1024;
    const Resolution small = resolve(op(Collective::Bcast, 1024), s);
    EXPECT_TRUE(small.native());
    EXPECT_EQ(small.reason, "builtin: below min_bytes 64K");
    EXPECT_EQ(resolve(op(Collective::Barrier, 0), s).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Bcast, 1 << 20), s).method.algorithm, "wanstream");
}

TEST(Resolver, ForcedMethodWinsAndGuardsStillApply) {
    ResolverSettings s = pmpi_like();
    s.forced[static_cast<std::size_t>(Collective::Reduce)] = ForcedMethod{Method("multilevel"), "GRIDCOLL_REDUCE_ALGORITHM"};
    const Resolution r = resolve(op(Collective::Reduce, 4096), s);
    EXPECT_EQ(r.method.algorithm, "multilevel");
    EXPECT_EQ(r.reason, "forced by GRIDCOLL_REDUCE_ALGORITHM");
    Operation flat = op(Collective::Reduce, 4096, "auto", std::make_shared<const Topology>(Topology::flat(8)));
    EXPECT_TRUE(resolve(flat, s).native()) << "a hierarchical method on a flat Topology goes to MPI";
    Operation one = op(Collective::Reduce, 4096);
    one.ranks = 1;
    EXPECT_EQ(resolve(one, s).reason, "one rank");
    EXPECT_EQ(resolve(op(Collective::Reduce, 4096), s, CallTraits{3, true}).reason, "message not whole elements");
    EXPECT_EQ(resolve(op(Collective::Reduce, 4096), s, CallTraits{4, false}).reason,
              "datatype with gaps: the MPI library reduces it");
}

TEST(Resolver, NonCommutativeReductionsAvoidReorderingMethods) {
    ResolverSettings s = pmpi_like();
    s.forced[static_cast<std::size_t>(Collective::Allreduce)] = ForcedMethod{Method("ring"), "x"};
    Operation o = op(Collective::Allreduce, 1 << 20);
    o.commutative = false;
    const Resolution r = resolve(o, s);
    EXPECT_TRUE(r.native());
    EXPECT_EQ(r.reason, "ring reorders operands; the operation is not commutative");
}

TEST(Resolver, PlogpDecisionPicksTheOptimisersTwolayer) {
    ResolverSettings s = pmpi_like();
    s.plogp_bcast = true;
    const Resolution r = resolve(op(Collective::Bcast, 1 << 20), s);
    EXPECT_EQ(r.method.algorithm, "twolayer");
    EXPECT_EQ(r.method.params.levels.size(), 2u);
    EXPECT_EQ(r.reason.rfind("P-LogP optimiser", 0), 0u);
}

TEST(Resolver, SeveralLeadersWhereANodeLinkLimits) {
    // 16 sites of 4 nodes: a 10 ms, 100 MB/s WAN above 12.5 MB/s node links. A lone leader's 15
    // messages of 16 KiB take 20 ms through its node link, two WAN latencies: spread them.
    std::string text = "levels wan lan node\nlink 0 0.01 1e8\nlink 1 2e-5 1.25e7\n";
    for (int r = 0; r < 64; ++r) text += "rank " + std::to_string(r) + " 0 " + std::to_string(r / 4) + " " + std::to_string(r) + "\n";
    const auto many = std::make_shared<const Topology>(Topology::from_text(text, "grid-16x4"));
    const Resolution mid = resolve(op(Collective::Allreduce, 16 * 1024, "auto", many), {});
    EXPECT_EQ(mid.method.algorithm, "coleaders");
    EXPECT_GE(mid.method.params.fanout, 2);
    EXPECT_EQ(resolve(op(Collective::Allreduce, 8, "auto", many), {}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Allreduce, 16 * 1024), {}).method.algorithm, "leaders");  // das-4x2: 3 messages
    const Resolution bcast = resolve(op(Collective::Bcast, 16 * 1024, "auto", many), {});
    EXPECT_EQ(bcast.method.algorithm, "coleaders");
    EXPECT_GE(bcast.method.params.fanout, 2);
    EXPECT_EQ(resolve(op(Collective::Bcast, 8, "auto", many), {}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Bcast, 16 * 1024), {}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Reduce, 16 * 1024, "auto", many), {}).method.algorithm, "coleaders");
    EXPECT_EQ(resolve(op(Collective::Reduce, 8, "auto", many), {}).method.algorithm, "leaders");
    const Resolution allgather = resolve(op(Collective::Allgather, 1024, "auto", many), {});  // 4 KiB a site
    EXPECT_EQ(allgather.method.algorithm, "coleaders");
    EXPECT_EQ(allgather.method.params.fanout, 2);
    EXPECT_EQ(resolve(op(Collective::Allgather, 1024), {}).method.algorithm, "leaders");  // das-4x2
    for (const Collective scan : {Collective::Scan, Collective::Exscan}) {
        const Resolution spread = resolve(op(scan, 16 * 1024, "auto", many), {});
        EXPECT_EQ(spread.method.algorithm, "coleaders") << to_string(scan);
        EXPECT_GE(spread.method.params.fanout, 2) << to_string(scan);
        EXPECT_EQ(resolve(op(scan, 8, "auto", many), {}).method.algorithm, "leaders") << to_string(scan);
        EXPECT_EQ(resolve(op(scan, 16 * 1024), {}).method.algorithm, "leaders") << to_string(scan);  // das-4x2
    }
}

TEST(Resolver, BandwidthMethodsOnlyWhereTheMessageTakesAWanLatency) {
    // 3 sites of 4 ranks: a 15 ms, 1.25 GB/s WAN moves 18.75 MB in one latency. Below that a
    // broadcast or allreduce stays with the leaders; das-4x2's 1 MB/s WAN streams from 64 KiB.
    std::string text = "levels wan lan node\nlink 0 0.015 1.25e9\nlink 1 1e-5 1.25e10\n";
    for (int r = 0; r < 12; ++r) text += "rank " + std::to_string(r) + " 0 " + std::to_string(r / 4) + " " + std::to_string(r) + "\n";
    const auto fast = std::make_shared<const Topology>(Topology::from_text(text, "fast-wan"));
    EXPECT_EQ(resolve(op(Collective::Bcast, 4 << 20, "auto", fast), {}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Allreduce, 4 << 20, "auto", fast), {}).method.algorithm, "leaders");
    EXPECT_EQ(resolve(op(Collective::Bcast, 32 << 20, "auto", fast), {}).method.algorithm, "wanstream");
    EXPECT_EQ(resolve(op(Collective::Allreduce, 32 << 20, "auto", fast), {}).method.algorithm, "multitree");
    EXPECT_EQ(resolve(op(Collective::Bcast, 64 * 1024), {}).method.algorithm, "wanstream");
    EXPECT_EQ(resolve(op(Collective::Allreduce, 64 * 1024), {}).method.algorithm, "multitree");
}

TEST(Resolver, LargeGathersAndScattersGoStraightToEveryRank) {
    EXPECT_TRUE(resolve(op(Collective::Gather, 16 * 1024), {}).native());
    EXPECT_EQ(resolve(op(Collective::Gather, 64 * 1024), {}).method.algorithm, "linear");
    EXPECT_TRUE(resolve(op(Collective::Scatter, 64 * 1024), {}).native());
    EXPECT_EQ(resolve(op(Collective::Scatter, 256 * 1024), {}).method.algorithm, "linear");
}

}  // namespace
}  // namespace gridcoll
