// The packed allreduce's pieces (algorithms/packing/out_trees.hpp, least_piece): a shard's trees
// of many rates are cut so that each carries kLeastBothPieces pieces, of kLeastFinePiece bytes at
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

// A tree of 30 KB/s whose shard takes 4 s carries 120 KB: for 30 pieces a tree, pieces of 4,000
// bytes; one of 2 KB/s would take pieces of 267 bytes and gets the least, 1 KiB; one of 1 MB/s
// keeps 8 KiB, and so does every tree where no count is asked for.
TEST(TreePacking, AllreduceShardTreesTakePiecesOfTheirRate) {
    EXPECT_EQ(least_piece(30e3, 4.0, 30), 4000u);
    EXPECT_EQ(least_piece(2e3, 4.0, 30), kLeastFinePiece);
    EXPECT_EQ(least_piece(1e6, 4.0, 30), kLeastPiece);
    EXPECT_EQ(least_piece(30e3, 4.0, 0), kLeastPiece);
    const SiteGraph g = graph_of_links(4, ring(4));
    const SiteTree chain{{-1, 0, 1, 2}, 30e3};
    EXPECT_EQ(piece_cut(g, chain, 0, 30e3, Way::Both, 0, least_piece(30e3, 4.0, 30)).second, 4000u);
    EXPECT_EQ(piece_cut(g, chain, 0, 30e3, Way::Both, 0).second, kLeastPiece);
}

namespace {

// The most pieces under `below` bytes that one stream (a rank, peer and channel) sends, over
// every rank's schedule of `method` for `r`.
std::size_t most_small_pieces(Request r, const char* method, std::uint64_t below = 4096) {
    std::size_t most = 0;
    for (int rank = 0; rank < r.size; ++rank) {
        r.rank = rank;
        const Schedule s = build_schedule(r, method);
        std::map<std::tuple<int, int>, std::size_t> small;
        for (const Step& st : s.steps())
            if (st.op == Op::Send && st.src.len < below) most = std::max(most, ++small[{st.peer, st.channel}]);
    }
    return most;
}

}  // namespace

// A 1 MiB allreduce on a partial mesh of nine sites of mixed links (the graph rand2 of
// validation/random_wan_graphs.py, one rank a site): its thin trees' streams cross the WAN in
// many small pieces (with 8 KiB least pieces a stream has at most a few below 4 KiB: its first and last), and
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
    EXPECT_GE(most_small_pieces(r, "packed"), 10u);
    const CheckResult res = check_algorithm(r, "packed");
    EXPECT_TRUE(res.ok) << res.error;
    // The reduce-scatter's streams on the same trees' network keep their 8 KiB pieces.
    r.coll = Collective::ReduceScatterBlock;
    r.bytes = (1 << 20) / 9;
    EXPECT_LE(most_small_pieces(r, "packed"), 4u);
}

// On a full mesh of uneven links the allreduce's shards take trees of one rate (unit_trees.hpp):
// no tree is thin there, and they keep their 8 KiB pieces: none smaller but a stream's first and
// last three (piece_lengths).
TEST(TreePacking, ShardTreesOfOneRateKeepTheirPieces) {
    const std::vector<UndirectedLink> links{{0, 1, 0.01, kB},      {0, 2, 0.02, 2 * kB}, {0, 3, 0.005, 0.5 * kB},
                                            {1, 2, 0.01, 0.5 * kB}, {1, 3, 0.01, 2 * kB}, {2, 3, 0.015, kB}};
    const Topology t = sites_on({1, 1, 1, 1}, links);
    Request r;
    r.coll = Collective::Allreduce;
    r.size = t.size();
    r.topology = &t;
    r.bytes = 1 << 20;
    EXPECT_LE(most_small_pieces(r, "packed", kLeastPiece), 8u);  // of two streams on a channel
    const CheckResult res = check_algorithm(r, "packed");
    EXPECT_TRUE(res.ok) << res.error;
}
