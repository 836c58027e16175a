// The co-leaders allreduce, allgather, broadcast, reduce, scan and exscan (algorithms/hierarchical/coleaders*.cpp,
// leaders_scan.cpp) beyond what the checker proves for every algorithm: with k leaders per site each rank sends and receives at most
// ceil((C - 1) / k) WAN messages (a lone leader C - 1), every ordered site pair exchanges exactly
// one (the broadcast: every other site gets exactly one, from the root's site; the reduce: sends
// one to it), and the co-leaders sit on different nodes of their site. The broadcast and the
// reduce are also checked from every root; the scan and the exscan (leaders_scan.cpp) keep the
// operands' order and send each site's total to every later site once.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"

using namespace gridcoll;

namespace {

// `sites` sites of `nodes` nodes of `cores` ranks each (levels wan, lan, node), block placement.
Topology grid(int sites, int nodes, int cores) {
    std::vector<std::vector<int>> ids;
    for (int s = 0; s < sites; ++s)
        for (int n = 0; n < nodes; ++n)
            for (int c = 0; c < cores; ++c) ids.push_back({0, s, s * nodes + n});
    return Topology(ids, {"wan", "lan", "node"});
}

Request request(const Topology& t, int rank, int k, std::uint64_t bytes, Collective coll = Collective::Allreduce, int root = 0) {
    Request r;
    r.coll = coll;
    r.root = root;
    r.size = t.size();
    r.rank = rank;
    r.bytes = bytes;
    r.elem = 4;
    r.topology = &t;
    r.params.fanout = k;
    return r;
}

// Every rank's sends and receives to or from another site in the coleaders schedule, in order.
std::vector<std::vector<Step>> wan_steps(const Topology& t, int k, Collective coll, int root = 0) {
    std::vector<std::vector<Step>> out(static_cast<std::size_t>(t.size()));
    for (int rank = 0; rank < t.size(); ++rank) {
        const Schedule s = build_schedule(request(t, rank, k, 8, coll, root), "coleaders");
        for (StepId id = 0; id < s.size_steps(); ++id) {
            const Step& st = s.step(id);
            if ((st.op == Op::Send || st.op == Op::Recv) && t.cluster(st.peer, 1) != t.cluster(rank, 1))
                out[static_cast<std::size_t>(rank)].push_back(st);
        }
    }
    return out;
}

}  // namespace

TEST(ColeadersShape, CorrectForEveryLeaderCount) {
    for (const Collective coll : {Collective::Allreduce, Collective::Allgather})
        for (const auto& [sites, nodes, cores] : std::vector<std::tuple<int, int, int>>{{7, 3, 2}, {2, 1, 3}, {5, 4, 1}, {1, 3, 2}})
            for (int k : {1, 2, 3, 4, 8})
                for (std::uint64_t bytes : {0, 4, 400}) {
                    const Topology t = grid(sites, nodes, cores);
                    const CheckResult res = check_algorithm(request(t, 0, k, bytes, coll), "coleaders");
                    EXPECT_TRUE(res.ok) << to_string(coll) << ", " << sites << " sites x " << nodes << " nodes x " << cores
                                        << " cores, k=" << k << ", " << bytes << " B: " << res.error;
                }
}

TEST(ColeadersShape, WanMessagesSpreadOverTheLeaders) {
    const int C = 7, cores = 2;
    const Topology t = grid(C, 3, cores);
    const auto site = [&](int rank) { return t.cluster(rank, 1); };
    for (const Collective coll : {Collective::Allreduce, Collective::Allgather}) {
        for (int k : {1, 2, 3}) {
            std::map<std::pair<int, int>, int> pair_messages;  // (from site, to site) -> messages
            int busiest = 0;
            const auto steps = wan_steps(t, k, coll);
            for (int rank = 0; rank < t.size(); ++rank) {
                int sends = 0, recvs = 0;
                for (const Step& st : steps[static_cast<std::size_t>(rank)]) {
                    (st.op == Op::Send ? sends : recvs)++;
                    if (st.op == Op::Send) ++pair_messages[{site(rank), site(st.peer)}];
                }
                busiest = std::max({busiest, sends, recvs});
            }
            EXPECT_EQ(busiest, (C - 1 + k - 1) / k) << to_string(coll) << ", k=" << k;
            EXPECT_EQ(pair_messages.size(), static_cast<std::size_t>(C * (C - 1))) << "k=" << k;
            for (const auto& [pair, n] : pair_messages) EXPECT_EQ(n, 1) << "sites " << pair.first << " -> " << pair.second;
        }
    }
}

TEST(ColeadersShape, CoLeadersOnDifferentNodes) {
    const int C = 4, nodes = 3, cores = 4;
    const Topology t = grid(C, nodes, cores);
    for (const Collective coll : {Collective::Allreduce, Collective::Allgather}) {
        for (int k : {2, 3}) {
            std::map<int, std::set<int>> wan_nodes;  // site -> nodes of the ranks that send over the WAN
            std::map<int, int> wan_ranks;            // site -> how many ranks send over the WAN
            const auto steps = wan_steps(t, k, coll);
            for (int rank = 0; rank < t.size(); ++rank) {
                const auto& mine = steps[static_cast<std::size_t>(rank)];
                if (std::any_of(mine.begin(), mine.end(), [](const Step& st) { return st.op == Op::Send; })) {
                    wan_nodes[t.cluster(rank, 1)].insert(t.cluster(rank, 2));
                    ++wan_ranks[t.cluster(rank, 1)];
                }
            }
            for (int s = 0; s < C; ++s) {
                EXPECT_EQ(wan_ranks[s], std::min(k, C - 1)) << to_string(coll) << ", site " << s << ", k=" << k;
                EXPECT_EQ(wan_nodes[s].size(), static_cast<std::size_t>(wan_ranks[s])) << to_string(coll) << ", site " << s << ", k=" << k;
            }
        }
    }
}

TEST(ColeadersShape, BroadcastAndReduceCorrectFromEveryRoot) {
    for (const Collective coll : {Collective::Bcast, Collective::Reduce})
        for (const auto& [sites, nodes, cores] : std::vector<std::tuple<int, int, int>>{{7, 3, 2}, {2, 1, 3}, {5, 4, 1}, {1, 3, 2}}) {
            const Topology t = grid(sites, nodes, cores);
            for (int k : {1, 2, 3, 8})
                for (std::uint64_t bytes : {0, 400})
                    for (int root = 0; root < t.size(); ++root) {
                        const CheckResult res = check_algorithm(request(t, 0, k, bytes, coll, root), "coleaders");
                        EXPECT_TRUE(res.ok) << to_string(coll) << ", " << sites << " sites x " << nodes << " nodes x " << cores
                                            << " cores, k=" << k << ", " << bytes << " B, root " << root << ": " << res.error;
                    }
        }
}

// The broadcast's WAN messages all leave the root's site, from k ranks on k nodes, ceil((C - 1) / k)
// at most a rank, and every other site gets exactly one; the reduce's, turned round.
TEST(ColeadersShape, BroadcastAndReduceWanMessagesMeetTheRootsSiteOnKNodes) {
    const int C = 7, nodes = 3, cores = 2;
    const Topology t = grid(C, nodes, cores);
    const auto site = [&](int rank) { return t.cluster(rank, 1); };
    for (const Collective coll : {Collective::Bcast, Collective::Reduce})
        for (int root : {0, 17})
            for (int k : {1, 2, 3}) {
                const Op out_op = coll == Collective::Bcast ? Op::Send : Op::Recv;  // at the root's site
                const std::string what = std::string(to_string(coll)) + ", k=" + std::to_string(k) + ", root " + std::to_string(root);
                std::map<int, int> far;      // other site -> its WAN messages
                std::set<int> near_nodes;    // nodes of the root site's ranks on the WAN
                int busiest = 0, near = 0;
                const auto steps = wan_steps(t, k, coll, root);
                for (int rank = 0; rank < t.size(); ++rank) {
                    int mine = 0;
                    for (const Step& st : steps[static_cast<std::size_t>(rank)]) {
                        if (site(rank) == site(root)) {
                            EXPECT_EQ(st.op, out_op) << what;
                            ++mine;
                        } else {
                            ++far[site(rank)];
                        }
                    }
                    if (mine > 0) near_nodes.insert(t.cluster(rank, 2)), ++near;
                    busiest = std::max(busiest, mine);
                }
                EXPECT_EQ(busiest, (C - 1 + k - 1) / k) << what;
                EXPECT_EQ(near, std::min(k, nodes)) << what;
                EXPECT_EQ(near_nodes.size(), static_cast<std::size_t>(near)) << what;
                EXPECT_EQ(far.size(), static_cast<std::size_t>(C - 1)) << what;
                for (const auto& [x, n] : far) EXPECT_EQ(n, 1) << "site " << x << ", " << what;
            }
}

// The scan and the exscan keep the operands' order (checked with a non-commutative operation)
// for every leader count, on uneven sites and on sites of one rank or one node.
TEST(ColeadersShape, ScanAndExscanCorrectInOrder) {
    const std::vector<std::vector<std::vector<int>>> shapes{
        {{0, 0, 0}, {0, 0, 1}, {0, 1, 2}, {0, 1, 3}, {0, 1, 3}, {0, 2, 4}, {0, 3, 5}, {0, 3, 6}, {0, 3, 6}, {0, 3, 7}},
        {{0, 0, 0}, {0, 1, 1}, {0, 2, 2}, {0, 3, 3}, {0, 4, 4}, {0, 5, 5}}};
    std::vector<Topology> topologies{grid(7, 3, 2), grid(2, 1, 3), grid(5, 4, 1), grid(1, 3, 2), grid(9, 1, 1)};
    for (const auto& ids : shapes) topologies.emplace_back(ids, std::vector<std::string>{"wan", "lan", "node"});
    for (const Collective coll : {Collective::Scan, Collective::Exscan})
        for (const Topology& t : topologies)
            for (int k : {1, 2, 3, 8})
                for (std::uint64_t bytes : {0, 8, 400})
                    for (const bool commutes : {true, false}) {
                        Request r = request(t, 0, k, bytes, coll);
                        r.commutative = commutes;
                        const CheckResult res = check_algorithm(r, "coleaders");
                        EXPECT_TRUE(res.ok) << to_string(coll) << ", " << t.size() << " ranks, k=" << k << ", " << bytes
                                            << " B, commutative " << commutes << ": " << res.error;
                    }
}

// Site s's total goes to every later site once; with k leaders no rank sends or receives more
// than ceil((C - 1) / k) WAN messages (a lone leader: C - 1), and a site's WAN ranks sit on
// different nodes.
TEST(ColeadersShape, ScanWanMessagesSpreadOverTheLeaders) {
    const int C = 9, nodes = 4, cores = 2;
    const Topology t = grid(C, nodes, cores);
    const auto site = [&](int rank) { return t.cluster(rank, 1); };
    for (const Collective coll : {Collective::Scan, Collective::Exscan})
        for (int k : {1, 2, 3, 4}) {
            const std::string what = std::string(to_string(coll)) + ", k=" + std::to_string(k);
            std::map<std::pair<int, int>, int> pair_messages;
            std::map<int, std::set<int>> sending_nodes, receiving_nodes;  // site -> nodes on the WAN
            int busiest = 0;
            const auto steps = wan_steps(t, k, coll);
            for (int rank = 0; rank < t.size(); ++rank) {
                int sends = 0, recvs = 0;
                for (const Step& st : steps[static_cast<std::size_t>(rank)]) {
                    (st.op == Op::Send ? sends : recvs)++;
                    if (st.op == Op::Send) ++pair_messages[{site(rank), site(st.peer)}];
                    EXPECT_EQ(st.op == Op::Send, site(st.peer) > site(rank)) << what << ": totals flow to later sites only";
                }
                if (sends > 0) sending_nodes[site(rank)].insert(t.cluster(rank, 2));
                if (recvs > 0) receiving_nodes[site(rank)].insert(t.cluster(rank, 2));
                busiest = std::max({busiest, sends, recvs});
            }
            EXPECT_EQ(busiest, (C - 1 + k - 1) / k) << what;
            EXPECT_EQ(pair_messages.size(), static_cast<std::size_t>(C * (C - 1) / 2)) << what;
            for (const auto& [pair, n] : pair_messages) EXPECT_EQ(n, 1) << what << ", sites " << pair.first << " -> " << pair.second;
            EXPECT_EQ(sending_nodes[0].size(), static_cast<std::size_t>(k)) << what;
            EXPECT_EQ(receiving_nodes[C - 1].size(), static_cast<std::size_t>(k)) << what;
        }
}
