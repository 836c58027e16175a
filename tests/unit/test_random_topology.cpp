// The random Topology generator produces the odd shapes it promises (otherwise the shared
// tests that use it would prove nothing about them), and the same Topology for the same seed.
#include <gtest/gtest.h>

#include <map>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/random_topology.hpp"

using namespace gridcoll;

namespace {

struct Shapes {
    bool one_rank_cluster = false, uneven = false, mixed_depth = false, interleaved = false;
    bool links_differ = false, links_alike = false;  // among those of two levels or more
    std::map<int, int> levels;  // levels -> count
};

Shapes survey(int seeds, int P) {
    Shapes s;
    for (int seed = 0; seed < seeds; ++seed) {
        const Topology t = random_topology(P, static_cast<std::uint64_t>(seed));
        EXPECT_EQ(t.size(), P);
        ++s.levels[t.levels()];
        if (t.levels() >= 2) (t.has_pair_links(0) ? s.links_differ : s.links_alike) = true;
        for (int l = 1; l < t.levels(); ++l) {
            std::map<int, int> sizes;
            for (int r = 0; r < P; ++r)
                if (t.depth(r) > l) ++sizes[t.cluster(r, l)];
            int lo = P, hi = 0;
            for (auto [id, n] : sizes) lo = std::min(lo, n), hi = std::max(hi, n);
            s.one_rank_cluster = s.one_rank_cluster || lo == 1;
            s.uneven = s.uneven || lo != hi;
        }
        for (int r = 1; r < P; ++r) {
            s.mixed_depth = s.mixed_depth || t.depth(r) != t.depth(0);
            // Interleaved: a rank shares its level-1 cluster with a later rank but not with the next one.
            if (t.levels() > 1 && t.depth(r - 1) > 1 && t.depth(r) > 1 && t.cluster(r - 1, 1) != t.cluster(r, 1))
                for (int q = r + 1; q < P; ++q)
                    if (t.depth(q) > 1 && t.cluster(q, 1) == t.cluster(r - 1, 1)) s.interleaved = true;
        }
    }
    return s;
}

}  // namespace

TEST(RandomTopology, CoversTheOddShapes) {
    const Shapes s = survey(200, 24);
    EXPECT_TRUE(s.one_rank_cluster);
    EXPECT_TRUE(s.uneven);
    EXPECT_TRUE(s.mixed_depth);
    EXPECT_TRUE(s.interleaved);
    EXPECT_TRUE(s.links_differ);
    EXPECT_TRUE(s.links_alike);
    for (int l = 1; l <= 5; ++l) EXPECT_TRUE(s.levels.count(l)) << l << " level(s) never drawn";
    EXPECT_EQ(s.levels.size(), 5u);
}

TEST(RandomTopology, SameSeedSameTopology) {
    EXPECT_EQ(random_topology(17, 42).to_text(), random_topology(17, 42).to_text());
    EXPECT_NE(random_topology(17, 42).to_text(), random_topology(17, 43).to_text());
}

TEST(RandomTopology, OneRankAndBadArguments) {
    EXPECT_EQ(random_topology(1, 3).size(), 1);
    EXPECT_THROW(random_topology(0, 1), Error);
    RandomTopologyOptions bad;
    bad.min_levels = 3;
    bad.max_levels = 2;
    EXPECT_THROW(random_topology(4, 1, bad), Error);
}
