// The shape of the multi-tree broadcast (algorithms/hierarchical/multitree.cpp) beyond what the
// checker proves: how many segments a WAN link holds in flight (method key win), that with
// k = 1 a site's two groups take turns on the WAN and pass the segments round rings, and the
// shares' sizes where the WAN links differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ranges>
#include <set>
#include <vector>

#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"

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

}  // namespace

TEST(MultitreeShape, WanWindowIsTheNumberOfSegmentsInFlight) {
    // 2 sites of 2 ranks: one share, in 4 segments, from the root (rank 0) to site 1's holders.
    const auto t = grid(2, 2);
    for (const auto& [k, win] : {std::pair{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {2, 3}}) {
        const Schedule s = multitree(0, t, 4096, 1024, k, win);
        std::vector<std::pair<StepId, int>> sends;  // across the WAN (the others go to rank 1)
        for (const auto& send : data_sends(s))
            if (send.second >= 2) sends.push_back(send);
        ASSERT_EQ(sends.size(), 4u) << "k=" << k << " win=" << win;
        for (std::size_t i = 0; i < sends.size(); ++i) {
            const auto deps = s.deps_of(sends[i].first);
            const bool waits = i >= static_cast<std::size_t>(win) &&
                               std::find(deps.begin(), deps.end(), sends[i - win].first) != deps.end();
            EXPECT_EQ(waits, i >= static_cast<std::size_t>(win))
                << "k=" << k << " win=" << win << ": send " << i << " must wait for send " << i - win << " and no other";
            for (std::size_t j = i >= static_cast<std::size_t>(win) ? i - win + 1 : 0; j < i; ++j)
                EXPECT_EQ(std::find(deps.begin(), deps.end(), sends[j].first), deps.end())
                    << "k=" << k << " win=" << win << ": send " << i << " waits for send " << j;
        }
    }
}

TEST(MultitreeShape, WanWindowCountsTheMessagesToASite) {
    // 2 sites of 2 ranks, k = 1: one share in 2 segments, which go to the two groups of site 1
    // (ranks 2 and 3); with win=1 the second still waits for the first: they share a WAN link.
    const auto t = grid(2, 2);
    const Schedule s = multitree(0, t, 2048, 1024, 1, 1);
    std::vector<std::pair<StepId, int>> sends;
    for (const auto& send : data_sends(s))
        if (send.second >= 2) sends.push_back(send);
    ASSERT_EQ(sends.size(), 2u);
    EXPECT_EQ(sends[0].second, 2);
    EXPECT_EQ(sends[1].second, 3);
    const auto deps = s.deps_of(sends[1].first);
    EXPECT_NE(std::find(deps.begin(), deps.end(), sends[0].first), deps.end());
}

TEST(MultitreeShape, KOneSplitsEachSiteIntoTwoGroupsAndRings) {
    // 5 sites of 6 ranks, k = 1: 4 shares of 2 and of 16 segments of 16 KiB.
    const auto t = grid(5, 6);
    const std::uint64_t seg = 16384;
    for (const std::uint64_t segments : {2, 16}) {
        const std::uint64_t share = segments * seg;
        for (int rank = 0; rank < 30; ++rank) {
            const Schedule s = multitree(rank, t, 4 * share, seg, 1, 1);
            const int index = rank % 6, site = rank / 6;
            std::set<int> lan;
            for (int p : data_sends(s) | std::views::values)
                if (p / 6 == site) lan.insert(p % 6);
            if (site == 0) {  // the root's site: one chain from the root
                EXPECT_EQ(lan, index < 5 ? std::set<int>{index + 1} : std::set<int>{}) << "rank " << rank;
                continue;
            }
            // Group A (even indices) gets the first half of a share's segments over the WAN,
            // group B the second.
            for (StepId id = 0; id < s.size_steps(); ++id) {
                const Step& st = s.step(id);
                if (st.op != Op::Recv || st.dst.len == 0 || st.peer / 6 == site) continue;
                EXPECT_EQ(st.dst.off % share / seg >= segments / 2, index % 2 == 1)
                    << "rank " << rank << " receives the segment at " << st.dst.off;
            }
            // B sends round the site's ring only; A also round A's ring (indices 0, 2, 4).
            const std::set<int> expected =
                index % 2 == 1 ? std::set<int>{(index + 1) % 6} : std::set<int>{index + 1, (index + 2) % 6};
            EXPECT_EQ(lan, expected) << "rank " << rank << ", " << segments << " segments";
        }
    }
}

// Shares in proportion to each share's slowest WAN link (Topology pair links): 5 sites of 4,
// the links of sites 1 and 2 at 2 MB/s, the others at 1 MB/s: shares 2 : 2 : 1 : 1 of the
// message, as bytes the root sends to each site; equal with shares=equal, and without pair links.
TEST(MultitreeShape, SharesFollowTheLinksBandwidth) {
    auto t = grid(5, 4);
    for (int a = 0; a < 5; ++a)
        for (int b = a + 1; b < 5; ++b)
            t->set_pair_link(0, a, b, LevelLink{10e-3, a == 1 || a == 2 || b == 1 || b == 2 ? 2e6 : 1e6});
    const std::uint64_t M = 600 * 1024;
    for (const bool equal : {false, true}) {
        Request r;
        r.coll = Collective::Bcast;
        r.size = 20;
        r.rank = 0;
        r.bytes = M;
        r.topology = t.get();
        r.params.segment = 64 * 1024;
        r.params.equal_shares = equal;
        const Schedule s = build_schedule(r, "multitree");
        std::vector<std::uint64_t> to_site(5, 0);
        for (const auto& [id, peer] : data_sends(s)) to_site[static_cast<std::size_t>(peer / 4)] += s.step(id).src.len;
        EXPECT_EQ(to_site[1] + to_site[2] + to_site[3] + to_site[4], M);
        if (equal) {
            EXPECT_EQ(to_site[1], M / 4);
            EXPECT_EQ(to_site[4], M / 4);
        } else {
            EXPECT_EQ(to_site[1], M / 3);
            EXPECT_EQ(to_site[2], M / 3);
            EXPECT_EQ(to_site[3], M / 6);
            EXPECT_EQ(to_site[4], M / 6);
        }
    }
    for (const std::uint64_t sent : [&] {
             std::vector<std::uint64_t> v(5, 0);
             const Schedule s = multitree(0, grid(5, 4), M, 64 * 1024, 1, 1);
             for (const auto& [id, peer] : data_sends(s)) v[static_cast<std::size_t>(peer / 4)] += s.step(id).src.len;
             return std::vector<std::uint64_t>(v.begin() + 1, v.end());
         }())
        EXPECT_EQ(sent, M / 4);
}

// The allreduce's shares: share j flows at the smallest bandwidth of site j's links, so with
// the links of sites 1 and 2 at 2 MB/s the shares are 1 : 2 : 2 : 1 : 1. Site 0 sends share j
// to site j (reduce-scatter) and its own share 0 to every site (allgather): S_j + S_0 bytes.
TEST(MultitreeShape, AllreduceSharesFollowTheLinksBandwidth) {
    auto t = grid(5, 4);
    for (int a = 0; a < 5; ++a)
        for (int b = a + 1; b < 5; ++b)
            t->set_pair_link(0, a, b, LevelLink{10e-3, a == 1 || a == 2 || b == 1 || b == 2 ? 2e6 : 1e6});
    const std::uint64_t M = 35 * 1024 * 8;  // bytes of 35 Ki elements of 8 bytes (r.elem)
    for (const bool equal : {false, true}) {
        std::vector<std::uint64_t> to_site(5, 0);
        for (int rank = 0; rank < 4; ++rank) {
            Request r;
            r.coll = Collective::Allreduce;
            r.size = 20;
            r.rank = rank;
            r.bytes = M;
            r.elem = 8;
            r.topology = t.get();
            r.params.segment = 16 * 1024;
            r.params.equal_shares = equal;
            const Schedule s = build_schedule(r, "multitree");
            for (const auto& [id, peer] : data_sends(s)) to_site[static_cast<std::size_t>(peer / 4)] += s.step(id).src.len;
        }
        const std::uint64_t s0 = equal ? M / 5 : M / 7;
        EXPECT_EQ(to_site[1], s0 + (equal ? M / 5 : 2 * M / 7)) << (equal ? "equal" : "by bandwidth");
        EXPECT_EQ(to_site[2], s0 + (equal ? M / 5 : 2 * M / 7)) << (equal ? "equal" : "by bandwidth");
        EXPECT_EQ(to_site[3], s0 + (equal ? M / 5 : M / 7)) << (equal ? "equal" : "by bandwidth");
        EXPECT_EQ(to_site[4], s0 + (equal ? M / 5 : M / 7)) << (equal ? "equal" : "by bandwidth");
    }
}

TEST(MultitreeShape, KOneWithOneSegmentPerShareIsOneRingPerSite) {
    // 5 sites of 6 ranks, k = 1, shares of one segment: no turns to take on the WAN, so inside a
    // site every rank sends to its successor only.
    const auto t = grid(5, 6);
    for (int rank = 0; rank < 30; ++rank) {
        std::set<int> lan;
        for (int p : data_sends(multitree(rank, t, 4 * 16384, 16384, 1, 1)) | std::views::values)
            if (p / 6 == rank / 6) lan.insert(p % 6);
        const int index = rank % 6;
        EXPECT_EQ(lan, rank < 6 && index == 5 ? std::set<int>{} : std::set<int>{(index + 1) % 6}) << "rank " << rank;
    }
}

TEST(MultitreeShape, AllreduceGroupsTakeTurnsOnTheWan) {
    // 3 sites of 4 ranks, 6 KiB: 3 shares of 2 KiB in 2 segments of 1 KiB. Group A (even site
    // indices) carries the first segments over the WAN and B the second; every A member feeds
    // its input of B's segments to its partner (index + 1).
    const auto t = grid(3, 4);
    const std::uint64_t share = 2048, seg = 1024;
    for (int rank = 0; rank < 12; ++rank) {
        Request r;
        r.coll = Collective::Allreduce;
        r.size = t->size();
        r.rank = rank;
        r.bytes = 3 * share;
        r.topology = t.get();
        r.params.segment = seg;
        const Schedule s = build_schedule(r, "multitree");
        const int index = rank % 4, site = rank / 4;
        int wan = 0, feeds = 0;
        for (StepId id = 0; id < s.size_steps(); ++id) {
            const Step& st = s.step(id);
            if (st.op != Op::Send || st.src.len == 0) continue;
            if (st.peer / 4 != site) {
                ++wan;
                EXPECT_EQ(st.src.off % share / seg >= 1, index % 2 == 1)
                    << "rank " << rank << " sends the segment at " << st.src.off << " over the WAN";
            } else if (index % 2 == 0 && st.peer == rank + 1 && st.src.buf == Buf::In) {
                ++feeds;
            }
        }
        EXPECT_GT(wan, 0) << "rank " << rank << " coordinates shares";
        if (index % 2 == 0) {  // its input of B's three segments at least
            EXPECT_GE(feeds, 3) << "rank " << rank << " feeds its partner";
        }
    }
}

TEST(MultitreeShape, EagerSegmentsInASiteAreAcknowledged) {
    // k = 1, 4 shares of 2 segments of 16 KiB (under the 64 KiB eager limit): in sites of 6 every
    // in-site receive is followed by a zero-byte acknowledgement, and a send waits for the
    // previous one's; in sites of 4 (two-member rings) there are none. 64 KiB segments: none.
    for (const auto& [n, seg, acked] : {std::tuple{6, 16384, true}, {4, 16384, false}, {6, 65536, false}}) {
        const auto t = grid(5, n);
        int acks = 0, paced = 0;
        for (int rank = n; rank < 5 * n; ++rank) {  // the non-root sites
            const Schedule s = multitree(rank, t, 4 * 2 * static_cast<std::uint64_t>(seg), seg, 1, 1);
            for (StepId id = 0; id < s.size_steps(); ++id) {
                const Step& st = s.step(id);
                if (st.peer / n != rank / n || st.peer < 0) continue;
                if (st.op == Op::Recv && st.dst.len > 0 && id + 1 < s.size_steps()) {
                    const Step& next = s.step(id + 1);
                    const auto deps = s.deps_of(id + 1);
                    if (next.op == Op::Send && next.peer == st.peer && next.src.len == 0 &&
                        std::find(deps.begin(), deps.end(), id) != deps.end())
                        ++acks;
                }
                if (st.op == Op::Send && st.src.len > 0)  // waits for the acknowledgement of an earlier send
                    for (StepId d : s.deps_of(id))
                        if (d > 0 && s.step(d).op == Op::Recv && s.step(d).peer == st.peer && s.step(d).dst.len == 0 &&
                            s.step(d - 1).op == Op::Send && s.step(d - 1).peer == st.peer && s.step(d - 1).src.len > 0)
                            ++paced;
            }
        }
        EXPECT_EQ(acks > 0, acked) << n << " ranks a site, segments of " << seg;
        EXPECT_EQ(paced > 0, acked) << n << " ranks a site, segments of " << seg;
    }
}
