// The shape of the multi-tree broadcast (algorithms/hierarchical/multitree.cpp) beyond what the
// checker proves: how many segments a WAN link holds in flight (method key win), that the root's
// own site gets its shares back over the WAN rather than from the root, and that with k = 1 the
// in-site phase is a ring (each rank sends to one neighbour only).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ranges>
#include <set>
#include <vector>

#include "gridcoll/registry.hpp"
#include "gridcoll/topology.hpp"

using namespace gridcoll;

namespace {

// `sites` sites of `n` ranks each, block placement.
std::shared_ptr<Topology> grid(int sites, int n) {
    std::vector<std::vector<int>> ids;
    for (int r = 0; r < sites * n; ++r) ids.push_back({0, r / n});
    return std::make_shared<Topology>(ids, std::vector<std::string>{"wan", "lan"});
}

Schedule multitree(int rank, const std::shared_ptr<Topology>& t, std::uint64_t bytes, std::uint64_t seg, int k,
                   int win) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = t->size();
    r.root = 0;
    r.rank = rank;
    r.bytes = bytes;
    r.topology = t.get();
    r.params.segment = seg;
    r.params.fanout = k;
    r.params.wan_window = win;
    return build_schedule(r, "multitree");
}

// The data sends (more than zero bytes) of a schedule, in order, as (step, peer).
std::vector<std::pair<StepId, int>> data_sends(const Schedule& s) {
    std::vector<std::pair<StepId, int>> out;
    for (StepId id = 0; id < s.size_steps(); ++id)
        if (s.step(id).op == Op::Send && s.step(id).src.len > 0) out.emplace_back(id, s.step(id).peer);
    return out;
}

std::set<int> peers_received_from(const Schedule& s) {
    std::set<int> out;
    for (StepId id = 0; id < s.size_steps(); ++id)
        if (s.step(id).op == Op::Recv && s.step(id).dst.len > 0) out.insert(s.step(id).peer);
    return out;
}

}  // namespace

TEST(MultitreeShape, WanWindowIsTheNumberOfSegmentsInFlight) {
    // 2 sites of 2 ranks: one share, in 4 segments, from the root (rank 0) to site 1's holder.
    const auto t = grid(2, 2);
    for (int win : {1, 2, 3}) {
        const Schedule s = multitree(0, t, 4096, 1024, 2, win);
        const auto sends = data_sends(s);
        ASSERT_EQ(sends.size(), 4u) << "win=" << win;
        for (std::size_t i = 0; i < sends.size(); ++i) {
            const auto deps = s.deps_of(sends[i].first);
            const bool waits = i >= static_cast<std::size_t>(win) &&
                               std::find(deps.begin(), deps.end(), sends[i - win].first) != deps.end();
            EXPECT_EQ(waits, i >= static_cast<std::size_t>(win))
                << "win=" << win << ": send " << i << " must wait for send " << i - win << " and no other";
            for (std::size_t j = i >= static_cast<std::size_t>(win) ? i - win + 1 : 0; j < i; ++j)
                EXPECT_EQ(std::find(deps.begin(), deps.end(), sends[j].first), deps.end())
                    << "win=" << win << ": send " << i << " waits for send " << j;
        }
    }
}

TEST(MultitreeShape, RootSiteGetsItsSharesOverTheWan) {
    // 3 sites of 4 ranks: two shares. The root sends only across the WAN; its site's other ranks
    // never receive from it: ranks 1 and 2 hold the two shares, from the other sites' holders.
    const auto t = grid(3, 4);
    for (int p : data_sends(multitree(0, t, 64 * 1024, 4096, 2, 2)) | std::views::values) EXPECT_GE(p, 4);
    for (int rank = 1; rank < 4; ++rank) {
        const std::set<int> from = peers_received_from(multitree(rank, t, 64 * 1024, 4096, 2, 2));
        EXPECT_FALSE(from.contains(0)) << "rank " << rank;
        EXPECT_EQ(std::any_of(from.begin(), from.end(), [](int p) { return p >= 4; }), rank <= 2) << "rank " << rank;
    }
}

TEST(MultitreeShape, ChainsInASiteFormOneRing) {
    // 5 sites of 6 ranks, k = 1: inside a site every rank sends to one neighbour only.
    const auto t = grid(5, 6);
    for (int rank = 6; rank < 30; ++rank) {
        std::set<int> lan;
        for (int p : data_sends(multitree(rank, t, 1 << 20, 16384, 1, 1)) | std::views::values)
            if (p / 6 == rank / 6) lan.insert(p);
        EXPECT_EQ(lan.size(), 1u) << "rank " << rank;
    }
}
