// Topology (algorithms/core/topology.cpp): the consistency check, common_level, members, and
// the rank-map text form — a round trip, and errors naming origin:line for bad rank maps.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/topology.hpp"

using namespace gridcoll;

namespace {

// 2 sites (level 0 = wan: all share it) x 2 machines x cores; rank depths differ: rank 6 sits
// on a machine without a node level below it.
Topology sample() {
    return Topology({{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {0, 2, 3}, {0, 3}}, {"wan", "site", "node"},
                    {LevelLink{5e-3, 12.5e6}, std::nullopt, LevelLink{1.5e-8, 1e10}});
}

std::string from_text_error(const std::string& text) {
    try {
        Topology::from_text(text, "map.txt");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(Topology, Queries) {
    const Topology t = sample();
    EXPECT_EQ(t.size(), 7);
    EXPECT_EQ(t.levels(), 3);
    EXPECT_EQ(t.depth(0), 3);
    EXPECT_EQ(t.depth(6), 2);
    EXPECT_EQ(t.level_name(1), "site");
    EXPECT_EQ(t.common_level(0, 1), 2);
    EXPECT_EQ(t.common_level(0, 2), 1);
    EXPECT_EQ(t.common_level(0, 3), 0);
    EXPECT_EQ(t.common_level(4, 5), 2);
    EXPECT_EQ(t.common_level(4, 4), 2);
    EXPECT_EQ(t.common_level(6, 6), 1);
    EXPECT_EQ(t.common_level(6, 0), 0);
    EXPECT_EQ(t.members(0, 0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(t.members(0, 1), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(t.members(2, 2), (std::vector<int>{2}));
    EXPECT_EQ(t.members(5, 2), (std::vector<int>{4, 5}));
    EXPECT_EQ(t.members(6, 1), (std::vector<int>{6}));
    ASSERT_TRUE(t.link(0));
    EXPECT_DOUBLE_EQ(t.link(0)->latency_s, 5e-3);
    EXPECT_FALSE(t.link(1));
    EXPECT_DOUBLE_EQ(t.link(2)->bandwidth_Bps, 1e10);
    EXPECT_THROW(t.members(6, 2), Error);
    EXPECT_THROW(t.common_level(0, 7), Error);
    EXPECT_THROW(t.link(3), Error);
}

TEST(Topology, DisjointTopLevelSharesNothing) {
    const Topology t({{0, 0}, {1, 1}}, {"a", "b"});
    EXPECT_EQ(t.common_level(0, 1), -1);
    EXPECT_THROW(Topology({{0, 0}, {1, 0}}, {"a", "b"}), Error);  // level-1 cluster 0 in two level-0 clusters
    EXPECT_FALSE(t.link(0));
}

TEST(Topology, Flat) {
    const Topology t = Topology::flat(5);
    EXPECT_EQ(t.size(), 5);
    EXPECT_EQ(t.levels(), 1);
    EXPECT_EQ(t.common_level(0, 4), 0);
    EXPECT_EQ(t.members(3, 0).size(), 5u);
    EXPECT_EQ(Topology::flat(0).size(), 0);
}

TEST(Topology, TextRoundTrip) {
    const Topology t = sample();
    const std::string text = t.to_text();
    EXPECT_EQ(text.rfind("# gridcoll rank map\nlevels wan site node\n", 0), 0u) << text;
    const Topology u = Topology::from_text(text, "roundtrip");
    EXPECT_EQ(u.to_text(), text);
    ASSERT_EQ(u.size(), t.size());
    ASSERT_EQ(u.levels(), t.levels());
    for (int r = 0; r < t.size(); ++r) {
        ASSERT_EQ(u.depth(r), t.depth(r));
        for (int l = 0; l < t.depth(r); ++l) EXPECT_EQ(u.cluster(r, l), t.cluster(r, l));
    }
    for (int l = 0; l < t.levels(); ++l) {
        ASSERT_EQ(u.link(l).has_value(), t.link(l).has_value());
        if (t.link(l)) {
            EXPECT_EQ(u.link(l)->latency_s, t.link(l)->latency_s);  // exactly: shortest round-trip text
            EXPECT_EQ(u.link(l)->bandwidth_Bps, t.link(l)->bandwidth_Bps);
        }
    }
}

TEST(Topology, TextAcceptsCommentsOrderAndLevelNames) {
    const Topology t = Topology::from_text(
        "# a rank map\n\nlevels wan node   # two levels\nrank 1 0 1\nlink node 1e-6 1e9\nrank 0 0 0\n", "m");
    EXPECT_EQ(t.size(), 2);
    EXPECT_EQ(t.cluster(1, 1), 1);
    EXPECT_FALSE(t.link(0));
    EXPECT_DOUBLE_EQ(t.link(1)->latency_s, 1e-6);
}

TEST(Topology, InconsistentClustersAreErrors) {
    // ranks 0 and 1 share level-1 cluster 5 but sit in different level-0 clusters
    EXPECT_THROW(Topology({{0, 5}, {1, 5}}, {"wan", "lan"}), Error);
    EXPECT_THROW(Topology({{0, 0, 0}}, {"wan", "lan"}), Error);  // deeper than the levels
    EXPECT_THROW(Topology({{}}, {"wan"}), Error);                // depth 0
    EXPECT_THROW(Topology({{-1}}, {"wan"}), Error);
    EXPECT_THROW(Topology({{0}}, {"two words"}), Error);
    EXPECT_THROW(Topology({{0}}, {"wan"}, {LevelLink{}, LevelLink{}}), Error);
    EXPECT_THROW(Topology({{0}}, {"wan"}, {LevelLink{-1, 1}}), Error);
    try {
        Topology({{0, 0, 7}, {0, 1, 2}, {0, 1, 7}}, {"a", "b", "c"});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("ranks 0 and 2 share cluster 7 of level 2"), std::string::npos)
            << e.what();
    }
}

TEST(Topology, BadRankMapsNameOriginAndLine) {
    const std::string head = "# map\nlevels wan node\n";
    EXPECT_EQ(from_text_error(""), "map.txt:1: no 'levels' line: not a rank map");
    EXPECT_EQ(from_text_error(head), "map.txt:2: no 'rank' lines");
    EXPECT_EQ(from_text_error("rank 0 0\n"), "map.txt:1: 'rank' before the 'levels' line");
    EXPECT_EQ(from_text_error(head + "rank 0 0 0\nhost 1 0 0\n"),
              "map.txt:4: unknown line 'host' (expected levels, link, rank, gateway, pairlink, clusterlink, netlink, netjoin or route)");
    EXPECT_EQ(from_text_error(head + "levels a\n"), "map.txt:3: second 'levels' line (the first is line 2)");
    EXPECT_EQ(from_text_error(head + "rank 0 0 0\nrank 0 0 1\n"), "map.txt:4: rank 0 listed twice (also line 3)");
    EXPECT_EQ(from_text_error(head + "rank 0 0 0\nrank 2 0 1\n"), "map.txt:4: rank 2 but rank 1 is missing");
    EXPECT_EQ(from_text_error(head + "rank 0 0 0 0\n"), "map.txt:3: rank 0 has 3 cluster ids but there are 2 levels");
    EXPECT_EQ(from_text_error(head + "rank 0 0 x\n"), "map.txt:3: bad cluster id 'x'");
    EXPECT_EQ(from_text_error(head + "rank 0 0 -1\n"), "map.txt:3: bad cluster id '-1'");
    EXPECT_EQ(from_text_error(head + "rank -3 0 0\n"), "map.txt:3: bad rank '-3'");
    EXPECT_EQ(from_text_error(head + "rank 0\n"), "map.txt:3: expected 'rank <r> <cluster id>...'");
    EXPECT_EQ(from_text_error(head + "link 2 1 1\nrank 0 0\n"), "map.txt:3: no level '2'");
    EXPECT_EQ(from_text_error(head + "link wan -1 1\nrank 0 0\n"), "map.txt:3: bad latency '-1' (seconds, >= 0)");
    EXPECT_EQ(from_text_error(head + "link wan 1 fast\nrank 0 0\n"),
              "map.txt:3: bad bandwidth 'fast' (bytes per second, >= 0)");
    EXPECT_EQ(from_text_error(head + "link 0 1 1\nlink wan 1 1\nrank 0 0\n"), "map.txt:4: second link for level wan");
    // inconsistency: reported at the line of the rank that breaks it
    EXPECT_EQ(from_text_error("levels wan lan\nrank 0 0 3\nrank 1 1 4\nrank 2 1 3\n"),
              "map.txt:4: ranks 0 and 2 share cluster 3 of level 1 (lan) but not their level 0 (wan) cluster");
    EXPECT_EQ(from_text_error("levels a b\nlevels c\n").substr(0, 10), "map.txt:2:");
}

// Gateways (paper 004): one per cluster, kept by the text form and by first(n), errors named.
TEST(Topology, Gateways) {
    Topology t = sample();
    EXPECT_EQ(t.gateway(4, 1), -1);
    t.set_gateway(5, 1);  // rank 5 is the gateway of site cluster 2 (ranks 4 and 5)
    EXPECT_EQ(t.gateway(4, 1), 5);
    EXPECT_EQ(t.gateway(5, 1), 5);
    EXPECT_EQ(t.gateway(0, 1), -1);  // another cluster of that level
    EXPECT_EQ(t.gateway(4, 2), -1);  // another level
    t.set_gateway(5, 1);             // the same again: fine
    EXPECT_THROW(t.set_gateway(4, 1), Error);  // a second gateway of that cluster
    EXPECT_THROW(t.set_gateway(6, 2), Error);  // rank 6 has depth 2
    const std::string text = t.to_text();
    EXPECT_NE(text.find("\ngateway 5 1\n"), std::string::npos) << text;
    EXPECT_EQ(Topology::from_text(text, "roundtrip").gateway(4, 1), 5);
    EXPECT_EQ(t.first(6).gateway(4, 1), 5);
    EXPECT_EQ(t.first(5).gateway(4, 1), -1);  // the gateway's rank is not in the job
    const std::string head = "levels wan lan\nrank 0 0 0\nrank 1 0 0\n";
    EXPECT_EQ(from_text_error(head + "gateway 1\n"), "map.txt:4: expected 'gateway <rank> <level index>'");
    EXPECT_EQ(from_text_error(head + "gateway 1 1\ngateway 0 1\n"),
              "map.txt:5: the level-1 cluster of rank 0 already has gateway rank 1");
    EXPECT_EQ(from_text_error(head + "gateway 7 0\n"), "map.txt:4: no rank 7 to be a gateway");
}

TEST(Topology, PairLinks) {
    Topology t = sample();
    EXPECT_FALSE(t.has_pair_links(0));
    EXPECT_DOUBLE_EQ(t.pair_link(0, 0, 2)->bandwidth_Bps, 12.5e6);  // the level's link
    t.set_pair_link(0, 2, 0, LevelLink{7e-3, 2e6});
    ASSERT_TRUE(t.has_pair_links(0));
    EXPECT_FALSE(t.has_pair_links(1));
    EXPECT_DOUBLE_EQ(t.pair_link(0, 0, 2)->bandwidth_Bps, 2e6);  // either direction
    EXPECT_DOUBLE_EQ(t.pair_link(0, 2, 0)->latency_s, 7e-3);
    EXPECT_DOUBLE_EQ(t.pair_link(0, 0, 1)->bandwidth_Bps, 12.5e6);
    EXPECT_FALSE(t.pair_link(1, 0, 1));  // no link for level 1 at all
    // Kept by the text form and by select().
    const Topology back = Topology::from_text(t.to_text(), "t");
    EXPECT_EQ(back.to_text(), t.to_text());
    EXPECT_DOUBLE_EQ(back.pair_link(0, 2, 0)->bandwidth_Bps, 2e6);
    EXPECT_DOUBLE_EQ(t.select({6, 0}).pair_link(0, 0, 2)->bandwidth_Bps, 2e6);
    // Errors.
    EXPECT_THROW(t.set_pair_link(2, 0, 1, LevelLink{0, 1}), Error);  // the deepest level
    EXPECT_THROW(t.set_pair_link(0, 1, 1, LevelLink{0, 1}), Error);
    EXPECT_THROW(t.set_pair_link(0, 0, 1, LevelLink{0, 0}), Error);
    EXPECT_NE(from_text_error("levels wan lan\nrank 0 0 0\npairlink 0 0 1 1e-3\n").find("map.txt:3: expected 'pairlink"),
              std::string::npos);
    EXPECT_NE(from_text_error("levels wan lan\nrank 0 0 0\npairlink 1 0 1 1e-3 1e6\n").find("map.txt:3: a pair link at level 1"),
              std::string::npos);
    // A pair link naming a cluster no rank is in (it was kept, and never used).
    EXPECT_NE(from_text_error("levels wan lan\nrank 0 0 0\nrank 1 0 1\npairlink 0 0 7 1e-3 1e6\n")
                  .find("map.txt:4: pair link 0-7: no cluster 7 at level 1"),
              std::string::npos);
    EXPECT_EQ(from_text_error("levels wan lan\nrank 0 0 0\nrank 1 0 1\npairlink 0 0 1 1e-3 1e6\n"), "(no error)");
}

TEST(Topology, ClusterLinks) {
    Topology t = sample();
    EXPECT_TRUE(t.cluster_links(1).empty());
    EXPECT_FALSE(t.cluster_link(1, 0));  // no link for level 1 at all
    t.set_cluster_link(1, 1, LevelLink{30e-6, 100e6});
    t.set_cluster_link(2, 4, LevelLink{5e-6, 200e6});  // the deepest level too
    EXPECT_DOUBLE_EQ(t.cluster_link(1, 1)->bandwidth_Bps, 100e6);
    EXPECT_FALSE(t.cluster_link(1, 0));
    ASSERT_EQ(t.cluster_links(1).size(), 1u);
    EXPECT_EQ(t.cluster_links(1)[0].first, 1);
    EXPECT_DOUBLE_EQ(t.cluster_link(0, 0)->bandwidth_Bps, 12.5e6);  // falls back to the level's
    // Kept by the text form and by select().
    const Topology back = Topology::from_text(t.to_text(), "t");
    EXPECT_EQ(back.to_text(), t.to_text());
    EXPECT_DOUBLE_EQ(back.cluster_link(2, 4)->latency_s, 5e-6);
    EXPECT_DOUBLE_EQ(t.select({6, 0}).cluster_link(1, 1)->bandwidth_Bps, 100e6);
    // Errors.
    EXPECT_THROW(t.set_cluster_link(3, 0, LevelLink{0, 1}), Error);
    EXPECT_THROW(t.set_cluster_link(0, -1, LevelLink{0, 1}), Error);
    EXPECT_THROW(t.set_cluster_link(0, 0, LevelLink{-1, 1}), Error);
    EXPECT_NE(from_text_error("levels wan lan\nrank 0 0 0\nclusterlink 0 0 1e-3\n").find("map.txt:3: expected 'clusterlink"),
              std::string::npos);
    EXPECT_NE(from_text_error("levels wan lan\nrank 0 0 0\nclusterlink 2 0 1e-3 1e6\n").find("map.txt:3: a cluster link at level 2"),
              std::string::npos);
}

TEST(Topology, SelectIsTheSubCommunicatorsView) {
    Topology t = sample();
    t.set_gateway(4, 1);
    const Topology s = t.select({5, 0, 4, 6});  // ranks 0..3 of a split communicator
    ASSERT_EQ(s.size(), 4);
    EXPECT_EQ(s.levels(), 3);
    EXPECT_EQ(s.common_level(0, 2), 2);  // old 5 and 4 share a node
    EXPECT_EQ(s.common_level(0, 1), 0);  // old 5 and 0: only the wan
    EXPECT_EQ(s.depth(3), 2);
    EXPECT_EQ(s.gateway(0, 1), 2);       // old gateway 4 is new rank 2
    ASSERT_TRUE(s.link(0));
    EXPECT_DOUBLE_EQ(s.link(0)->bandwidth_Bps, 12.5e6);
    EXPECT_EQ(t.select({3}).size(), 1);
    EXPECT_THROW(t.select({0, 0}), Error);
    EXPECT_THROW(t.select({7}), Error);
    EXPECT_THROW(t.select({}), Error);
}
