// The shape of the WAN-stream broadcast (algorithms/hierarchical/wanstream.cpp) beyond what the
// checker proves: no rank mixes WAN and LAN traffic in one direction, every WAN link direction
// carries exactly one share, the WAN receivers keep `win` receives posted per stream, and the
// pieces follow the WAN's latency x bandwidth, and the shares its links' bandwidth where they differ.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/random_topology.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"

using namespace gridcoll;

namespace {

// Sites of the given sizes, block placement; a WAN of `lat` seconds and `bw` B/s when bw > 0.
Topology sites_of(const std::vector<int>& sizes, double lat = 0, double bw = 0) {
    std::vector<std::vector<int>> ids;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        for (int m = 0; m < sizes[i]; ++m) ids.push_back({0, static_cast<int>(i)});
    std::vector<std::optional<LevelLink>> links;
    if (bw > 0) links.push_back(LevelLink{lat, bw});
    return Topology(ids, {"wan", "lan"}, links);
}

Request request(const Topology& t, int rank, int root, std::uint64_t bytes, std::uint64_t seg = 0, int win = 2) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = t.size();
    r.rank = rank;
    r.root = root;
    r.bytes = bytes;
    r.topology = &t;
    r.params.segment = seg;
    r.params.wan_window = win;
    return r;
}

int site(const Topology& t, int rank) { return t.depth(rank) > 1 ? t.cluster(rank, 1) : -1 - rank; }

}  // namespace

TEST(WanstreamShape, NoRankMixesWanAndLanInOneDirection) {
    int ranks_checked = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const int P = 2 + static_cast<int>((seed * 7) % 40);
        const Topology t = random_topology(P, seed);
        const int root = static_cast<int>(seed % static_cast<std::uint64_t>(P));
        for (int rank = 0; rank < P; ++rank) {
            const Schedule s = build_schedule(request(t, rank, root, 5000, 64), "wanstream");
            std::set<std::pair<Op, bool>> kinds;  // (send or receive, over the WAN?)
            for (StepId id = 0; id < s.size_steps(); ++id) {
                const Step& st = s.step(id);
                if (st.op == Op::Send || st.op == Op::Recv) kinds.insert({st.op, site(t, st.peer) != site(t, rank)});
            }
            for (Op op : {Op::Send, Op::Recv})
                EXPECT_FALSE(kinds.count({op, true}) && kinds.count({op, false}))
                    << "rank " << rank << " of " << P << " (seed " << seed << ", root " << root << ") "
                    << (op == Op::Send ? "sends" : "receives") << " both over the WAN and inside its site";
            ++ranks_checked;
        }
    }
    EXPECT_GT(ranks_checked, 100);
}

TEST(WanstreamShape, EveryWanLinkDirectionCarriesOneShare) {
    // 5 sites of uneven sizes (one of a single rank), root in the third.
    const Topology t = sites_of({3, 1, 4, 2, 5});
    const std::uint64_t bytes = 4000;                      // 4 shares of 1000
    std::map<std::pair<int, int>, std::uint64_t> carried;  // (from site, to site) -> bytes
    for (int rank = 0; rank < t.size(); ++rank) {
        const Schedule s = build_schedule(request(t, rank, 5, bytes, 128), "wanstream");
        for (StepId id = 0; id < s.size_steps(); ++id) {
            const Step& st = s.step(id);
            if (st.op == Op::Send && site(t, st.peer) != site(t, rank))
                carried[{site(t, rank), site(t, st.peer)}] += st.src.len;
        }
    }
    // Every ordered pair of sites: the root's site sends each home site its share, and every home
    // site sends its share to every other site (the root's included), nothing more.
    EXPECT_EQ(carried.size(), 5u * 4u);
    for (const auto& [pair, b] : carried) EXPECT_EQ(b, 1000u) << "site " << pair.first << " -> site " << pair.second;
}

TEST(WanstreamShape, OnlyTheRootsHopKeepsWinPosted) {
    // Site 1's sink (rank 4) takes its own share from the root `win` receives at a time, and site
    // 2's share from site 2's forwarder with every receive posted (those come as they reach it).
    const Topology t = sites_of({4, 4, 4});
    for (int win : {1, 2, 3}) {
        const Schedule s = build_schedule(request(t, 4, 0, 6000, 100, win), "wanstream");
        std::map<int, std::vector<StepId>> from;  // WAN receives per peer, in order
        for (StepId id = 0; id < s.size_steps(); ++id)
            if (s.step(id).op == Op::Recv && site(t, s.step(id).peer) != 1) from[s.step(id).peer].push_back(id);
        ASSERT_EQ(from.size(), 2u);  // the root (its share) and site 2's forwarder (site 2's share)
        for (const auto& [peer, recvs] : from) {
            const std::size_t window = peer == 0 ? static_cast<std::size_t>(win) : recvs.size();
            ASSERT_GT(recvs.size(), static_cast<std::size_t>(win));
            for (std::size_t k = 0; k < recvs.size(); ++k) {
                const auto deps = s.deps_of(recvs[k]);
                if (k < window) {
                    EXPECT_TRUE(deps.empty()) << "win " << win << ", receive " << k << " from " << peer;
                } else {
                    ASSERT_EQ(deps.size(), 1u);
                    EXPECT_EQ(deps[0], recvs[k - window]) << "win " << win << ", receive " << k;
                }
            }
        }
    }
}

TEST(WanstreamShape, PiecesFollowTheWansLatencyTimesBandwidth) {
    // 10 ms x 1 MB/s = 10000 bytes in flight: pieces of 10000 after a first of one byte, the last
    // two of 5000 and 2500.
    const Topology t = sites_of({2, 2}, 0.01, 1e6);
    const Schedule s = build_schedule(request(t, 0, 0, 60000), "wanstream");
    std::vector<std::uint64_t> sizes;
    for (StepId id = 0; id < s.size_steps(); ++id)
        if (s.step(id).op == Op::Send) sizes.push_back(s.step(id).src.len);
    EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1, 10000, 10000, 10000, 10000, 10000, 2499, 5000, 2500}));
    // 20 ms: 20000 in flight; a piece of 30000 starts with 10000.
    const Topology slow = sites_of({2, 2}, 0.02, 1e6);
    const Schedule s2 = build_schedule(request(slow, 0, 0, 100000, 30000), "wanstream");
    EXPECT_EQ(s2.step(0).src.len, 10000u);
}

TEST(WanstreamShape, CorrectOnUnevenSitesAndAnyRoot) {
    const Topology t = sites_of({3, 1, 4, 2, 5}, 0.01, 1e6);
    for (int root = 0; root < t.size(); ++root)
        for (std::uint64_t bytes : {1u, 999u, 70001u}) {
            const CheckResult res = check_algorithm(request(t, 0, root, bytes), "wanstream");
            ASSERT_TRUE(res.ok) << "root " << root << ", " << bytes << " bytes: " << res.error;
        }
}

TEST(WanstreamShape, OneSiteIsAChainFromTheRoot) {
    const Topology t = sites_of({6});
    for (int rank = 0; rank < 6; ++rank) {
        const Schedule s = build_schedule(request(t, rank, 2, 1000, 100), "wanstream");
        std::set<int> peers;
        for (StepId id = 0; id < s.size_steps(); ++id) peers.insert(s.step(id).peer);
        EXPECT_LE(peers.size(), 2u) << "rank " << rank;  // its predecessor and successor
    }
    EXPECT_TRUE(check_algorithm(request(t, 0, 2, 1000, 100), "wanstream").ok);
}

TEST(WanstreamShape, SharesAndPiecesFollowTheLinksBandwidth) {
    // Three sites; every link 1 MB/s but the ones of site 2, 2 MB/s; 10 ms each. Share 0 (home
    // site 1) flows at 1 MB/s, share 1 (home site 2) at 2 MB/s: shares 1 : 2, pieces of L B =
    // 10000 and 20000 bytes.
    Topology t = sites_of({2, 2, 2});
    t.set_pair_link(0, 0, 1, LevelLink{10e-3, 1e6});
    t.set_pair_link(0, 0, 2, LevelLink{10e-3, 2e6});
    t.set_pair_link(0, 1, 2, LevelLink{10e-3, 2e6});
    for (const bool equal : {false, true}) {
        Request r = request(t, 0, 0, 300000);
        r.params.equal_shares = equal;
        const Schedule s = build_schedule(r, "wanstream");
        std::map<int, std::uint64_t> bytes, largest;  // per receiving sink
        for (StepId id = 0; id < s.size_steps(); ++id) {
            const Step& st = s.step(id);
            bytes[st.peer] += st.src.len;
            largest[st.peer] = std::max(largest[st.peer], st.src.len);
        }
        ASSERT_EQ(bytes.size(), 2u);  // ranks 2 and 4, the sinks of sites 1 and 2
        EXPECT_EQ(bytes[2] + bytes[4], 300000u);
        EXPECT_EQ(bytes[2], equal ? 150000u : 100000u);
        EXPECT_EQ(largest[2], 10000u);  // its own link's L B, and with equal shares the slowest's
        EXPECT_EQ(largest[4], equal ? 10000u : 20000u);
    }
}

TEST(WanstreamShape, SharesOfOnePieceAreMultitreesRings) {
    // 3 sites, 10 ms x 1 MB/s: pieces of 10000 bytes. 12000 bytes make shares of 6000, one piece
    // each: multitree:k=1:seg=64K:win=1's schedule. 60000 bytes make streams.
    const Topology t = sites_of({4, 4, 4}, 0.01, 1e6);
    const auto same = [&](std::uint64_t bytes, int rank) {
        Request m = request(t, rank, 0, bytes, 64 * 1024, 1);
        m.params.fanout = 1;
        const Schedule a = build_schedule(request(t, rank, 0, bytes), "wanstream");
        const Schedule b = build_schedule(m, "multitree");
        if (a.size_steps() != b.size_steps()) return false;
        for (StepId id = 0; id < a.size_steps(); ++id)
            if (a.step(id).op != b.step(id).op || a.step(id).peer != b.step(id).peer ||
                a.step(id).src.len != b.step(id).src.len || a.step(id).dst.len != b.step(id).dst.len)
                return false;
        return true;
    };
    for (int rank = 0; rank < 12; ++rank) {
        EXPECT_TRUE(same(12000, rank)) << "rank " << rank;
        if (rank >= 4) {
            EXPECT_FALSE(same(60000, rank)) << "rank " << rank;
        }
    }
}

TEST(WanstreamShape, AGatewayIsItsSitesSink) {
    // Three sites of four; site 1's gateway is its last member (rank 7), the root's site's its
    // third (rank 2), site 2 has none. Every WAN message into a site goes to its sink: the
    // gateway where there is one, else the first member (not the root).
    Topology t = sites_of({4, 4, 4});
    t.set_gateway(7, 1);
    t.set_gateway(2, 1);
    const std::map<int, int> sink{{0, 2}, {1, 7}, {2, 8}};
    std::map<int, int> wan_in;  // receiving rank -> WAN receives
    for (int rank = 0; rank < t.size(); ++rank) {
        const Schedule s = build_schedule(request(t, rank, 0, 300000, 8192), "wanstream");
        for (StepId id = 0; id < s.size_steps(); ++id) {
            const Step& st = s.step(id);
            if (st.op == Op::Recv && site(t, st.peer) != site(t, rank)) ++wan_in[rank];
        }
    }
    ASSERT_EQ(wan_in.size(), 3u) << "one WAN receiver per site";
    for (const auto& [st, rank] : sink) EXPECT_GT(wan_in[rank], 0) << "site " << st << "'s sink, rank " << rank;
    // The root as its site's gateway: the site's sink is then its first other member.
    Topology u = sites_of({4, 4, 4});
    u.set_gateway(0, 1);
    std::set<int> receivers;
    for (int rank = 0; rank < 4; ++rank) {
        const Schedule s = build_schedule(request(u, rank, 0, 300000, 8192), "wanstream");
        for (StepId id = 0; id < s.size_steps(); ++id)
            if (s.step(id).op == Op::Recv && site(u, s.step(id).peer) != site(u, rank)) receivers.insert(rank);
    }
    EXPECT_EQ(receivers, std::set<int>{1});
}

TEST(WanstreamShape, AForwarderTakesItsShareWithoutWaitingForOtherShares) {
    // Sites of two (sink and forwarder, the chain [sink, fwd]) and uneven ones. The pieces a
    // forwarder sends over the WAN (its share) must reach it without waiting for a piece of
    // another share: taken round by round with those, each site's forwarder would wait for the
    // other sites' forwarders, and all would advance a piece per WAN latency.
    for (const std::vector<int>& sizes : {std::vector<int>{2, 2, 2, 2}, std::vector<int>{3, 2, 5, 2}}) {
        const Topology t = sites_of(sizes);
        int forwarders = 0;
        for (int rank = 0; rank < t.size(); ++rank) {
            const Schedule s = build_schedule(request(t, rank, 0, 40000, 1000), "wanstream");
            std::set<std::uint64_t> own;  // offsets of the pieces I send over the WAN
            for (StepId id = 0; id < s.size_steps(); ++id)
                if (s.step(id).op == Op::Send && site(t, s.step(id).peer) != site(t, rank)) own.insert(s.step(id).src.off);
            if (rank == 0 || own.empty()) continue;
            ++forwarders;
            // Every step an own-share receive waits for, directly or not, is an own-share receive.
            for (StepId id = 0; id < s.size_steps(); ++id) {
                if (s.step(id).op != Op::Recv || !own.count(s.step(id).dst.off)) continue;
                std::vector<StepId> todo(s.deps_of(id).begin(), s.deps_of(id).end());
                while (!todo.empty()) {
                    const StepId d = todo.back();
                    todo.pop_back();
                    ASSERT_TRUE(s.step(d).op == Op::Recv && own.count(s.step(d).dst.off))
                        << "rank " << rank << " (sites of " << sizes[0] << ", ...): its share's piece at "
                        << s.step(id).dst.off << " waits for step " << d;
                    todo.insert(todo.end(), s.deps_of(d).begin(), s.deps_of(d).end());
                }
            }
        }
        EXPECT_EQ(forwarders, static_cast<int>(sizes.size()) - 1);
    }
}
