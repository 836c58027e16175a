// The platform loader on valid descriptions (tests/platforms/valid/): parsed values, count
// expansion and renaming, a zone's `network` key and its older spelling `topology`, placement
// (block, round-robin, file, oversubscribed), the Topology's levels, cluster ids and links, and
// the hostfile.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"

using namespace gridcoll;
using namespace gridcoll::platform;

namespace {

const std::string kValid = std::string(GRIDCOLL_TEST_DATA) + "/valid/";

std::string error_of(const std::string& toml) {
    try {
        parse_platform(toml, "inline.toml");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

// Two leaves of 1 and 2 cores under a root, with a placement table.
std::string two_hosts(const std::string& placement) {
    return "name = \"t\"\n" + placement +
           "\n[zone]\nname = \"r\"\nlink = { latency = \"1ms\", bandwidth = \"1MB/s\" }\n"
           "[[zone.zones]]\nname = \"a\"\nnodes = 1\nlink = { latency = \"1us\", bandwidth = \"1GB/s\" }\n"
           "[[zone.zones]]\nname = \"b\"\nnodes = 1\ncores = 2\nlink = { latency = \"1us\", bandwidth = \"1GB/s\" }\n";
}

// The parsed zone trees of a and b agree (names, levels, networks, links, nodes), field by field.
void expect_same_zones(const Zone& a, const Zone& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.level, b.level);
    EXPECT_EQ(a.network, b.network) << a.name;
    EXPECT_DOUBLE_EQ(a.link.latency_s, b.link.latency_s) << a.name;
    EXPECT_DOUBLE_EQ(a.link.bandwidth_Bps, b.link.bandwidth_Bps) << a.name;
    EXPECT_EQ(a.loc.line, b.loc.line) << a.name;
    EXPECT_EQ(a.nodes, b.nodes) << a.name;
    EXPECT_EQ(a.cores, b.cores) << a.name;
    ASSERT_EQ(a.children.size(), b.children.size()) << a.name;
    for (std::size_t i = 0; i < a.children.size(); ++i) expect_same_zones(a.children[i], b.children[i]);
}

}  // namespace

TEST(Load, DasExampleValues) {
    const Platform p = load_platform(kValid + "das-4x32.toml");
    EXPECT_EQ(p.name, "das-4x32");
    EXPECT_EQ(p.description, "DAS: 4 clusters of 32 nodes joined by a wide-area network");
    EXPECT_EQ(p.source, "Kielmann, Bal, Gorlatch, IPDPS 2000 (paper 000), Sec. 5");
    EXPECT_EQ(p.file, kValid + "das-4x32.toml");
    EXPECT_EQ(p.placement.policy, PlacementPolicy::Block);
    EXPECT_EQ(p.placement.ranks, 128);
    EXPECT_FALSE(p.placement.oversubscribe);

    const Zone& das = p.root;
    EXPECT_EQ(das.name, "das");
    EXPECT_EQ(das.level, "wan");
    EXPECT_EQ(das.network, Interconnect::Mesh);
    EXPECT_DOUBLE_EQ(das.link.latency_s, 10e-3);
    EXPECT_DOUBLE_EQ(das.link.bandwidth_Bps, 1e6);
    EXPECT_EQ(das.link.loc.line, 18);
    EXPECT_EQ(das.loc.line, 14);
    EXPECT_FALSE(das.gateway);
    EXPECT_FALSE(das.is_leaf());
    ASSERT_EQ(das.children.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        const Zone& c = das.children[static_cast<std::size_t>(i)];
        EXPECT_EQ(c.name, "c" + std::to_string(i));
        EXPECT_EQ(c.level, "cluster");
        EXPECT_EQ(c.network, Interconnect::Switched);
        EXPECT_TRUE(c.is_leaf());
        EXPECT_EQ(c.nodes, 32);
        EXPECT_EQ(c.cores, 1);
        EXPECT_DOUBLE_EQ(c.speed_flops, 1e9);
        EXPECT_DOUBLE_EQ(c.link.latency_s, 20e-6);
        EXPECT_DOUBLE_EQ(c.link.bandwidth_Bps, 50e6);
        ASSERT_TRUE(c.backbone);
        EXPECT_DOUBLE_EQ(c.backbone->latency_s, 0);
        EXPECT_DOUBLE_EQ(c.backbone->bandwidth_Bps, 1e9);
        EXPECT_DOUBLE_EQ(c.core_link.latency_s, 1e-6);
        EXPECT_DOUBLE_EQ(c.core_link.bandwidth_Bps, 1e9);
        ASSERT_TRUE(c.gateway);
        EXPECT_EQ(c.gateway->node, "");
        EXPECT_DOUBLE_EQ(c.gateway->overhead_s, 30e-6);
        EXPECT_DOUBLE_EQ(c.gateway->bandwidth_Bps, 35e6);
        EXPECT_EQ(c.loc.str(), p.file + ":20:1");
    }
    const auto hs = hosts(p);
    ASSERT_EQ(hs.size(), 128u);
    EXPECT_EQ(hs[0].name, "c0-0");
    EXPECT_EQ(hs[33].name, "c1-1");
    EXPECT_EQ(hs[127].name, "c3-31");
    ASSERT_EQ(hs[33].path.size(), 2u);
    EXPECT_EQ(hs[33].path[0], &p.root);
    EXPECT_EQ(hs[33].path[1], &p.root.children[1]);
}

TEST(Load, DasTopologyAndHostfile) {
    const Platform p = load_platform(kValid + "das-4x32.toml");
    const Topology t = topology(p);
    ASSERT_EQ(t.size(), 128);
    ASSERT_EQ(t.levels(), 3);
    EXPECT_EQ(t.level_name(0), "wan");
    EXPECT_EQ(t.level_name(1), "cluster");
    EXPECT_EQ(t.level_name(2), "node");
    for (int r = 0; r < 128; ++r) {
        ASSERT_EQ(t.depth(r), 3);
        EXPECT_EQ(t.cluster(r, 0), 0);
        EXPECT_EQ(t.cluster(r, 1), r / 32);
        EXPECT_EQ(t.cluster(r, 2), r);  // block, one core per node: host index = rank
    }
    EXPECT_EQ(t.common_level(0, 31), 1);
    EXPECT_EQ(t.common_level(31, 32), 0);
    EXPECT_DOUBLE_EQ(t.link(0)->latency_s, 10e-3);
    EXPECT_DOUBLE_EQ(t.link(0)->bandwidth_Bps, 1e6);
    EXPECT_DOUBLE_EQ(t.link(1)->latency_s, 20e-6);
    EXPECT_DOUBLE_EQ(t.link(1)->bandwidth_Bps, 50e6);
    EXPECT_DOUBLE_EQ(t.link(2)->latency_s, 1e-6);
    EXPECT_EQ(topology(p, 10).size(), 10);
    EXPECT_THROW(topology(p, 129), Error);  // more ranks than cores

    const std::string hf = hostfile(p);
    EXPECT_EQ(hf.rfind("c0-0\nc0-1\n", 0), 0u);
    EXPECT_EQ(std::count(hf.begin(), hf.end(), '\n'), 128);
    EXPECT_NE(hf.find("\nc3-31\n"), std::string::npos);
    EXPECT_EQ(hostfile(p, 3), "c0-0\nc0-1\nc0-2\n");
    // the Topology's text form reads back the same
    EXPECT_EQ(Topology::from_text(t.to_text(), "das").to_text(), t.to_text());
}

TEST(Load, NestedCountExpansionAndGatewayRenaming) {
    const Platform p = load_platform(kValid + "grid-2x2x4.toml");
    ASSERT_EQ(p.root.children.size(), 2u);
    const std::vector<std::string> sites{"site0", "site1"};
    for (std::size_t s = 0; s < 2; ++s) {
        const Zone& site = p.root.children[s];
        EXPECT_EQ(site.name, sites[s]);
        EXPECT_EQ(site.network, Interconnect::Star);
        EXPECT_DOUBLE_EQ(site.link.bandwidth_Bps, 1.25e8);
        EXPECT_DOUBLE_EQ(site.link.loss, 0.001);
        EXPECT_DOUBLE_EQ(site.link.jitter_s, 10e-6);
        ASSERT_TRUE(site.gateway);
        EXPECT_DOUBLE_EQ(site.gateway->overhead_s, 20e-6);
        ASSERT_EQ(site.children.size(), 2u);
        for (std::size_t c = 0; c < 2; ++c) {
            const Zone& cl = site.children[c];
            const std::string name = sites[s] + "-c" + std::to_string(c);
            EXPECT_EQ(cl.name, name);
            EXPECT_EQ(cl.nodes, 4);
            EXPECT_EQ(cl.cores, 4);
            EXPECT_DOUBLE_EQ(cl.speed_flops, 2.5e9);
            EXPECT_DOUBLE_EQ(cl.core_link.bandwidth_Bps, 8.0 * 1073741824.0);
            EXPECT_DOUBLE_EQ(cl.core_link.latency_s, 500e-9);
            ASSERT_TRUE(cl.gateway);
            EXPECT_EQ(cl.gateway->node, name + "-0");  // written as site0-c0-0
            EXPECT_DOUBLE_EQ(cl.gateway->bandwidth_Bps, 0);
        }
    }
    const auto hs = hosts(p);
    ASSERT_EQ(hs.size(), 16u);
    EXPECT_EQ(hs[5].name, "site0-c1-1");
    EXPECT_EQ(hs[15].name, "site1-c1-3");
    EXPECT_EQ(hs[15].cores, 4);
    EXPECT_EQ(hs[15].path.size(), 3u);
}

TEST(Load, NestedRoundRobinTopology) {
    const Platform p = load_platform(kValid + "grid-2x2x4.toml");
    EXPECT_EQ(p.placement.policy, PlacementPolicy::RoundRobin);
    const auto ranks = place_ranks(p);
    ASSERT_EQ(ranks.size(), 64u);  // one per core
    EXPECT_EQ(ranks[0], "site0-c0-0");
    EXPECT_EQ(ranks[1], "site0-c0-1");
    EXPECT_EQ(ranks[15], "site1-c1-3");
    EXPECT_EQ(ranks[16], "site0-c0-0");
    EXPECT_EQ(ranks[63], "site1-c1-3");
    const Topology t = topology(p);
    ASSERT_EQ(t.levels(), 4);
    EXPECT_EQ(t.level_name(0), "wan");
    EXPECT_EQ(t.level_name(1), "site");
    EXPECT_EQ(t.level_name(2), "cluster");
    EXPECT_EQ(t.level_name(3), "node");
    // rank 13 -> host 13 = site1-c1-1: site 1, cluster 3 (ids count zones at a depth), node 13
    EXPECT_EQ(t.cluster(13, 0), 0);
    EXPECT_EQ(t.cluster(13, 1), 1);
    EXPECT_EQ(t.cluster(13, 2), 3);
    EXPECT_EQ(t.cluster(13, 3), 13);
    EXPECT_EQ(t.common_level(0, 16), 3);  // same node
    EXPECT_EQ(t.common_level(0, 1), 2);   // same cluster
    EXPECT_EQ(t.common_level(0, 4), 1);   // same site
    EXPECT_EQ(t.common_level(0, 8), 0);   // across the WAN
    EXPECT_EQ(t.members(0, 3), (std::vector<int>{0, 16, 32, 48}));
    EXPECT_DOUBLE_EQ(t.link(0)->bandwidth_Bps, 12.5e6);
    EXPECT_DOUBLE_EQ(t.link(1)->latency_s, 100e-6);
    EXPECT_DOUBLE_EQ(t.link(2)->bandwidth_Bps, 1.25e9);
    EXPECT_DOUBLE_EQ(t.link(3)->latency_s, 500e-9);

    // block on the same platform: 4 ranks per node
    Platform b = p;
    b.placement.policy = PlacementPolicy::Block;
    const auto br = place_ranks(b, 10);
    EXPECT_EQ(br, (std::vector<std::string>{"site0-c0-0", "site0-c0-0", "site0-c0-0", "site0-c0-0", "site0-c0-1",
                                            "site0-c0-1", "site0-c0-1", "site0-c0-1", "site0-c0-2", "site0-c0-2"}));
}

// Zones of one depth with links of their own (karonis-grid's three machines, and their nodes'
// core links): the level has no link, each placed cluster its own (Topology::cluster_link);
// levels whose zones agree get none.
TEST(Load, ClusterLinksWhereZonesDiffer) {
    const Platform p = load_platform(std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/karonis-grid.toml");
    const Topology t = topology(p);
    ASSERT_EQ(t.levels(), 4);
    EXPECT_TRUE(t.cluster_links(0).empty());
    EXPECT_TRUE(t.cluster_links(1).empty());
    EXPECT_FALSE(t.link(2));
    ASSERT_EQ(t.cluster_links(2).size(), 3u);
    const int sdsc_sp = t.cluster(0, 2), anl_o2k = t.cluster(47, 2);
    EXPECT_DOUBLE_EQ(t.cluster_link(2, sdsc_sp)->latency_s, 30e-6);
    EXPECT_DOUBLE_EQ(t.cluster_link(2, sdsc_sp)->bandwidth_Bps, 100e6);
    EXPECT_DOUBLE_EQ(t.cluster_link(2, anl_o2k)->bandwidth_Bps, 150e6);
    // Node level: an SP node's shared memory (10 us) and an O2K board's (5 us).
    EXPECT_DOUBLE_EQ(t.cluster_link(3, t.cluster(0, 3))->latency_s, 10e-6);
    EXPECT_DOUBLE_EQ(t.cluster_link(3, t.cluster(47, 3))->latency_s, 5e-6);
    // Only the placed ones: the first 4 ranks fill one SDSC node.
    const Topology four = topology(p, 4);
    EXPECT_EQ(four.cluster_links(2).size(), 1u);
    EXPECT_EQ(four.cluster_links(3).size(), 1u);
}

TEST(Load, ExplicitLinksAndFilePlacement) {
    const Platform p = load_platform(kValid + "explicit-3.toml");
    EXPECT_EQ(p.root.network, Interconnect::Explicit);
    ASSERT_EQ(p.root.links.size(), 2u);
    EXPECT_EQ(p.root.links[1].a, "b");
    EXPECT_EQ(p.root.links[1].b, "c0");
    EXPECT_DOUBLE_EQ(p.root.links[1].link.latency_s, 2e-3);
    EXPECT_DOUBLE_EQ(p.root.links[1].link.bandwidth_Bps, 12.5e6);
    EXPECT_EQ(p.root.links[1].link.loc.line, 20);
    ASSERT_EQ(p.root.children.size(), 3u);
    EXPECT_EQ(p.root.children[0].network, Interconnect::Shared);
    EXPECT_EQ(p.root.children[1].network, Interconnect::Ring);
    const Zone& c0 = p.root.children[2];
    EXPECT_EQ(c0.name, "c0");
    EXPECT_EQ(c0.network, Interconnect::Explicit);
    ASSERT_EQ(c0.links.size(), 2u);
    EXPECT_EQ(c0.links[1].a, "c0-1");
    EXPECT_EQ(c0.links[1].b, "c0-2");

    EXPECT_EQ(p.placement.policy, PlacementPolicy::File);
    EXPECT_EQ(p.placement.hosts, (std::vector<std::string>{"a-0", "b-2", "c0-1", "a-0"}));
    EXPECT_EQ(place_ranks(p), p.placement.hosts);
    EXPECT_EQ(place_ranks(p, 2), (std::vector<std::string>{"a-0", "b-2"}));
    EXPECT_THROW(place_ranks(p, 5), Error);
    EXPECT_EQ(hostfile(p), "a-0\nb-2\nc0-1\na-0\n");
    const Topology t = topology(p);
    ASSERT_EQ(t.levels(), 3);
    EXPECT_FALSE(t.link(0));  // explicit WAN: no single level link
    EXPECT_FALSE(t.link(1));  // the clusters disagree
    EXPECT_EQ(t.common_level(0, 3), 2);
    EXPECT_EQ(t.cluster(2, 1), 2);
    EXPECT_EQ(t.cluster(2, 2), 6);  // host index of c0-1
    // Pair links: each explicit link, and a - c0 routed through b (latencies summed, the
    // smaller bandwidth); none between the nodes of the explicit leaf c0.
    ASSERT_TRUE(t.has_pair_links(0));
    EXPECT_FALSE(t.has_pair_links(1));
    const auto ab = t.pair_link(0, 0, 1), bc = t.pair_link(0, 2, 1), ac = t.pair_link(0, 0, 2);
    ASSERT_TRUE(ab && bc && ac);
    EXPECT_DOUBLE_EQ(ab->latency_s, 1e-3);
    EXPECT_DOUBLE_EQ(ab->bandwidth_Bps, 10e6);
    EXPECT_DOUBLE_EQ(bc->bandwidth_Bps, 12.5e6);
    EXPECT_DOUBLE_EQ(ac->latency_s, 3e-3);
    EXPECT_DOUBLE_EQ(ac->bandwidth_Bps, 10e6);
}

TEST(Load, InlineFileHostsAndOversubscription) {
    const Platform p =
        parse_platform(two_hosts("[placement]\npolicy = \"file\"\nhosts = [\"b-0\", \"a-0\", \"b-0\"]\n"), "x.toml");
    EXPECT_EQ(place_ranks(p), (std::vector<std::string>{"b-0", "a-0", "b-0"}));
    EXPECT_NE(error_of(two_hosts("[placement]\npolicy = \"file\"\nhosts = [\"a-0\", \"a-0\"]\n"))
                  .find("inline.toml:4:17: placement.hosts[1]: more ranks than cores on host \"a-0\""),
              std::string::npos);
    EXPECT_NO_THROW(parse_platform(
        two_hosts("[placement]\npolicy = \"file\"\nhosts = [\"a-0\", \"a-0\"]\noversubscribe = true\n"), "x.toml"));

    const Platform blk = parse_platform(two_hosts("[placement]\nranks = 6\noversubscribe = true\n"), "x.toml");
    EXPECT_EQ(place_ranks(blk), (std::vector<std::string>{"a-0", "a-0", "b-0", "b-0", "b-0", "b-0"}));
    const Platform rr =
        parse_platform(two_hosts("[placement]\npolicy = \"round-robin\"\nranks = 6\noversubscribe = true\n"), "x.toml");
    EXPECT_EQ(place_ranks(rr), (std::vector<std::string>{"a-0", "b-0", "b-0", "a-0", "b-0", "a-0"}));
    const Platform dflt = parse_platform(two_hosts(""), "x.toml");
    EXPECT_EQ(place_ranks(dflt), (std::vector<std::string>{"a-0", "b-0", "b-0"}));
    EXPECT_THROW(place_ranks(dflt, 4), Error);
    EXPECT_NE(error_of(two_hosts("[placement]\nranks = 4\n"))
                  .find("inline.toml:3:9: placement.ranks: more ranks than cores: 4 ranks on 3 cores"),
              std::string::npos);
}

TEST(Load, UnevenDepthsPadTheShallowLeaf) {
    const Platform p = parse_platform(
        "name = \"u\"\n[zone]\nname = \"r\"\nlevel = \"wan\"\nlink = { latency = \"1ms\", bandwidth = \"1MB/s\" }\n"
        "[[zone.zones]]\nname = \"x\"\nlevel = \"lan\"\nnodes = 2\nlink = { latency = \"1us\", bandwidth = \"1GB/s\" "
        "}\n"
        "[[zone.zones]]\nname = \"g\"\nlevel = \"lan\"\nlink = { latency = \"10us\", bandwidth = \"1GB/s\" }\n"
        "[[zone.zones.zones]]\nname = \"y\"\ncount = 2\nlevel = \"cluster\"\nnodes = 1\n"
        "link = { latency = \"1us\", bandwidth = \"1GB/s\" }\n",
        "u.toml");
    EXPECT_EQ(p.root.children[1].children[1].name, "y1");  // g is not replicated: no prefix
    const Topology t = topology(p);
    ASSERT_EQ(t.levels(), 4);
    EXPECT_EQ(t.level_name(2), "cluster");
    EXPECT_EQ(t.level_name(3), "node");
    ASSERT_EQ(t.size(), 4);
    EXPECT_EQ(t.depth(0), 4);
    EXPECT_EQ(t.cluster(0, 1), 0);
    EXPECT_EQ(t.cluster(0, 2), 0);  // x stands for itself at the cluster depth
    EXPECT_EQ(t.cluster(2, 1), 1);
    EXPECT_EQ(t.cluster(2, 2), 1);
    EXPECT_EQ(t.cluster(3, 2), 2);
    EXPECT_EQ(t.common_level(0, 1), 2);
    EXPECT_EQ(t.common_level(2, 3), 1);
    EXPECT_FALSE(t.link(1));  // x (1us) and g (10us) disagree
    EXPECT_DOUBLE_EQ(t.link(2)->latency_s, 1e-6);
}

TEST(Load, DefaultsAndExactErrorFormat) {
    const Platform p = parse_platform(two_hosts(""), "x.toml");
    EXPECT_EQ(p.root.level, "level0");
    EXPECT_EQ(p.root.children[0].level, "level1");
    EXPECT_EQ(p.root.network, Interconnect::Switched);
    EXPECT_EQ(p.root.children[0].cores, 1);
    EXPECT_DOUBLE_EQ(p.root.children[0].speed_flops, 1e9);
    EXPECT_EQ(p.placement.policy, PlacementPolicy::Block);
    EXPECT_EQ(p.placement.ranks, 0);
    // the FORMAT.md example of an error
    std::string das =
        "name = \"d\"\n[zone]\nname = \"das\"\nlink = { latency = \"1ms\", bandwidth = \"1MB/s\" }\n"
        "[[zone.zones]]\nname = \"c\"\nnodes = 2\nlink = { latency = \"1us\", bandwidth = \"-1MB/s\" }\n";
    EXPECT_EQ(error_of(das), "inline.toml:8:39: zone.zones[0].link.bandwidth: negative bandwidth \"-1MB/s\"");
    EXPECT_EQ(error_of("name = \"d\"\n[zone\n"), error_of("name = \"d\"\n[zone\n"));
    EXPECT_EQ(error_of("name = \"d\"\n[zone\n").rfind("inline.toml:2:", 0), 0u);
    EXPECT_EQ(error_of("name = \"d\"\n"), "inline.toml:1:1: zone: missing required key");
    EXPECT_THROW(load_platform(kValid + "no-such-file.toml"), Error);
    EXPECT_THROW(load_platform(kValid), Error);  // a directory
}

TEST(Load, NetworkKeyAndItsOlderSpellingTopology) {
    // A mesh of two replicated ring clusters, the network named by `key`.
    const auto desc = [](const std::string& key) {
        return "name = \"t\"\n[zone]\nname = \"r\"\n" + key +
               " = \"mesh\"\nlink = { latency = \"1ms\", bandwidth = \"1MB/s\" }\n"
               "[[zone.zones]]\nname = \"a\"\ncount = 2\n" +
               key + " = \"ring\"\nnodes = 3\nlink = { latency = \"1us\", bandwidth = \"1GB/s\" }\n";
    };
    const Platform now = parse_platform(desc("network"), "network.toml");
    const Platform old = parse_platform(desc("topology"), "topology.toml");
    EXPECT_EQ(now.root.network, Interconnect::Mesh);
    ASSERT_EQ(now.root.children.size(), 2u);
    EXPECT_EQ(now.root.children[1].name, "a1");
    EXPECT_EQ(now.root.children[1].network, Interconnect::Ring);
    expect_same_zones(now.root, old.root);

    // Both keys in one zone: an error at the older one, naming the file and the zone.
    const std::string link = "link = { latency = \"1us\", bandwidth = \"1GB/s\" }\n";
    EXPECT_EQ(error_of("name = \"t\"\n[zone]\nname = \"r\"\nnetwork = \"mesh\"\ntopology = \"mesh\"\n" + link +
                       "[[zone.zones]]\nname = \"a\"\nnodes = 1\n" + link),
              "inline.toml:5:12: zone.topology: zone \"r\" has both network and topology (the older spelling of "
              "network); keep only network");
    EXPECT_EQ(error_of("name = \"t\"\n[zone]\nname = \"r\"\n" + link + "[[zone.zones]]\nname = \"a\"\ncount = 2\n" +
                       "topology = \"ring\"\nnetwork = \"star\"\nnodes = 1\n" + link),
              "inline.toml:8:12: zone.zones[0].topology: zone \"a\" has both network and topology (the older "
              "spelling of network); keep only network");
    // An unknown value is reported at whichever key holds it.
    EXPECT_EQ(error_of("name = \"t\"\n[zone]\nname = \"r\"\ntopology = \"tree\"\nnodes = 1\n" + link),
              "inline.toml:4:12: zone.topology: unknown network \"tree\" (switched, shared, star, mesh, ring, "
              "explicit)");
    EXPECT_EQ(error_of("name = \"t\"\n[zone]\nname = \"r\"\nnetwork = \"tree\"\nnodes = 1\n" + link),
              "inline.toml:4:11: zone.network: unknown network \"tree\" (switched, shared, star, mesh, ring, "
              "explicit)");
}

TEST(Load, EveryValidAndShippedFileLoads) {
    std::vector<std::filesystem::path> files;
    for (const std::string& dir : {kValid, std::string(GRIDCOLL_SOURCE_DIR) + "/platforms/shipped/"}) {
        if (!std::filesystem::is_directory(dir)) continue;
        for (const auto& e : std::filesystem::directory_iterator(dir))
            if (e.path().extension() == ".toml") files.push_back(e.path());
    }
    ASSERT_GE(files.size(), 3u);
    for (const auto& f : files) {
        try {
            const Platform p = load_platform(f.string());
            const Topology t = topology(p);
            EXPECT_GT(t.size(), 0) << f;
            EXPECT_EQ(Topology::from_text(t.to_text(), f.string()).to_text(), t.to_text()) << f;
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
        }
    }
}

TEST(Load, LimitsAreErrorsNotExhaustedMemory) {
    const std::string root =
        "name = \"big\"\n[zone]\nname = \"r\"\nlink = { latency = \"1ms\", bandwidth = \"1MB/s\" }\n";
    const std::string link = "link = { latency = \"1us\", bandwidth = \"1GB/s\" }\n";
    EXPECT_NE(error_of(root + "[[zone.zones]]\nname = \"c\"\n" + link + "nodes = 2000000\n")
                  .find("zone.zones[0].nodes: must be at most 1048576, got 2000000"),
              std::string::npos);
    EXPECT_NE(error_of(root + "[[zone.zones]]\nname = \"c\"\ncount = 3\n" + link + "nodes = 500000\n")
                  .find("more than 1048576 nodes in the platform"),
              std::string::npos);
    EXPECT_NE(error_of(root + "[[zone.zones]]\nname = \"g\"\ncount = 60000\n" + link +
                       "[[zone.zones.zones]]\nname = \"c\"\n" + "count = 60000\n" + link + "nodes = 1\n")
                  .find("more than 65536 zones"),
              std::string::npos);
    std::string deep = root;
    std::string header = "zone";
    for (int d = 1; d <= 40; ++d) {
        header += ".zones";
        deep += "[[" + header + "]]\nname = \"z" + std::to_string(d) + "\"\n" + link;
    }
    EXPECT_NE(error_of(deep).find("zones nested deeper than 32 levels"), std::string::npos) << error_of(deep);
    EXPECT_NE(error_of("name = \"big\"\n[placement]\nranks = 20000000\n" + root.substr(root.find('[')) +
                       "[[zone.zones]]\nname = \"c\"\n" + link + "nodes = 1\n")
                  .find("placement.ranks: must be at most 16777216"),
              std::string::npos);
}
