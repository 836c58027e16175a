// The packed allreduce's pieces (algorithms/packing/out_trees.hpp, least_piece): a shard's trees
// (Way::Both) are cut so that each carries kLeastBothPieces pieces, of kLeastBothPiece bytes at
// the least and kLeastPiece at the most; every other stream keeps kLeastPiece as its least piece.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "packing/out_trees.hpp"
#include "packing/packing.hpp"
#include "site_graphs.hpp"

using namespace gridcoll;
using namespace gridcoll::detail;
using namespace gridcoll::test;

// A tree of 30 KB/s whose shard takes 4 s carries 120 KB: pieces of 4,000 bytes, 30 of them; one of
// 2 KB/s would take pieces of 267 bytes and gets the least, 1 KiB; one of 1 MB/s keeps 8 KiB.
// Broadcast and reduction streams (Out, In) keep 8 KiB whatever their rate.
TEST(TreePacking, AllreduceShardTreesTakePiecesOfTheirRate) {
    EXPECT_EQ(least_piece(30e3, Way::Both, 4.0), 4000u);
    EXPECT_EQ(least_piece(2e3, Way::Both, 4.0), kLeastBothPiece);
    EXPECT_EQ(least_piece(1e6, Way::Both, 4.0), kLeastPiece);
    EXPECT_EQ(least_piece(30e3, Way::Out, 4.0), kLeastPiece);
    EXPECT_EQ(least_piece(30e3, Way::In, 4.0), kLeastPiece);
    const SiteGraph g = graph_of_links(4, ring(4));
    const SiteTree chain{{-1, 0, 1, 2}, 30e3};
    EXPECT_EQ(piece_cut(g, chain, 0, 30e3, Way::Both, 0, 4.0).second, 4000u);
    EXPECT_EQ(piece_cut(g, chain, 0, 30e3, Way::Out, 0, 4.0).second, kLeastPiece);
    EXPECT_NEAR(stream_seconds(120e3, {chain}), 4.0, 1e-12);
}

// A 1 MiB allreduce on a partial mesh of nine sites of mixed links (the graph rand2 of
// validation/random_wan_graphs.py, one rank a site): its thin trees' streams cross the WAN in
// many small pieces (with 8 KiB least pieces a stream has at most one below 4 KiB, its last), and
// every rank's result is proven by the checker.
TEST(TreePacking, AThinShardTreeStreamsInSmallPieces) {
    const std::vector<UndirectedLink> links{{0, 1, 0.01, kB},       {1, 2, 0.02, kB},       {2, 3, 0.01, kB},
                                            {3, 4, 0.005, 0.5 * kB}, {4, 5, 0.02, 0.5 * kB}, {5, 6, 0.005, 2 * kB},
                                            {6, 7, 0.01, 2 * kB},   {7, 8, 0.01, kB},       {4, 7, 0.025, 0.5 * kB},
                                            {1, 6, 0.005, kB},      {2, 7, 0.01, 0.5 * kB}, {1, 5, 0.01, 2 * kB}};
    const Topology t = sites_on(std::vector<int>(9, 1), links);
    Request r;
    r.coll = Collective::Allreduce;
    r.size = t.size();
    r.topology = &t;
    r.bytes = 1 << 20;
    std::size_t most_small = 0;  // the most pieces under 4 KiB in one stream (a rank, peer and channel)
    for (int rank = 0; rank < r.size; ++rank) {
        r.rank = rank;
        const Schedule s = build_schedule(r, "packed");
        std::map<std::tuple<int, int>, std::size_t> small;
        for (const Step& st : s.steps())
            if (st.op == Op::Send && st.src.len < 4096) most_small = std::max(most_small, ++small[{st.peer, st.channel}]);
    }
    EXPECT_GE(most_small, 10u);
    const CheckResult res = check_algorithm(r, "packed");
    EXPECT_TRUE(res.ok) << res.error;
}
