// The packed broadcast's tail (algorithms/packing/out_trees.hpp, bcast_tail and
// OutTrees::add_tail): the message's last bytes along the least-latency tree after the packed
// trees, sized so that both end together, gated behind the streams they follow.
#include <gtest/gtest.h>

#include <set>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "packing/out_trees.hpp"
#include "packing/packing.hpp"
#include "site_graphs.hpp"

using namespace gridcoll;
using namespace gridcoll::detail;
using namespace gridcoll::test;

// On a ring of eight sites (10 ms, 1 MB/s) a broadcast's full rate takes both chains round, 7
// hops each; its last bytes follow them along the tree of least latency (4 hops each way), sized
// so that both end together: 1 MB/s times 3 hops of a latency and a 10 KB piece's time (60 KB).
// The root sends those both ways round, and a neighbour takes them in only after the chain's last
// piece from the root. Every rank's result proven by the checker, from two roots.
TEST(TreePacking, ABroadcastsLastBytesTakeTheShallowTree) {
    const SiteGraph g = graph_of_links(8, ring(8));
    const RootTrees trees = with_achieved_rates(g, *plan_trees(g, {{0, 4e6}}), true).front();
    ASSERT_EQ(trees.trees.size(), 2u);
    const BcastTail tail = bcast_tail(g, trees, 4 << 20, 0, 1);
    EXPECT_NEAR(static_cast<double>(tail.bytes), 60e3, 100);
    EXPECT_NEAR(tail.tree.depth_latency(g), 0.04, 1e-9);
    const Topology t = sites_on({2, 2, 2, 2, 2, 2, 2, 2}, ring(8));
    Request r;
    r.coll = Collective::Bcast;
    r.size = t.size();
    r.topology = &t;
    r.bytes = 4 << 20;
    const std::uint64_t head = r.bytes - tail.bytes;
    const Schedule root = build_schedule(r, "packed");
    std::set<int> last_to;  // who the root sends the message's last byte to
    for (const Step& st : root.steps())
        if (st.op == Op::Send && st.src.off + st.src.len == r.bytes) last_to.insert(st.peer);
    EXPECT_EQ(last_to, (std::set<int>{2, 14}));
    r.rank = 2;  // site 1's sink
    const Schedule s = build_schedule(r, "packed");
    bool gated = false;
    for (StepId id = 0; id < s.size_steps(); ++id)
        if (s.step(id).op == Op::Recv && s.step(id).dst.off == head)
            for (StepId d : s.deps_of(id)) gated = gated || (s.step(d).op == Op::Recv && s.step(d).peer == 0 && s.step(d).dst.off < head);
    EXPECT_TRUE(gated) << "the tail's first piece is not taken in after the chain's last";
    for (int root : {0, 9}) {
        r.root = root;
        r.bytes = 1 << 20;
        const CheckResult res = check_algorithm(r, "packed");
        EXPECT_TRUE(res.ok) << "root " << root << ": " << res.error;
    }
}
