// How a tree broadcast's node sends a segment to its children: the k-ary tree posts them all at
// once and completes them before the next segment (Open MPI's generic tree engine), the binomial
// tree sends one after another (MPICH, SimGrid's binomial_tree). Checked on the root's steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "gridcoll/algorithms/registry.hpp"

using namespace gridcoll;

namespace {

// The root's sends, in order, with the sends each one depends on directly.
struct RootSend {
    StepId id;
    std::vector<StepId> send_deps;
};

std::vector<RootSend> root_sends(const char* algorithm, int P, int fanout, std::uint64_t bytes, std::uint64_t segment) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = P;
    r.root = 0;
    r.rank = 0;
    r.bytes = bytes;
    r.params.segment = segment;
    r.params.fanout = fanout;
    const Schedule s = build_schedule(r, algorithm);
    std::vector<RootSend> out;
    for (StepId id = 0; id < s.size_steps(); ++id) {
        if (s.step(id).op != Op::Send) continue;
        RootSend rs{id, {}};
        for (StepId d : s.deps_of(id))
            if (s.step(d).op == Op::Send) rs.send_deps.push_back(d);
        out.push_back(rs);
    }
    return out;
}

}  // namespace

TEST(ChildSends, KaryPostsASegmentToAllChildrenAtOnce) {
    // 8 ranks, fan-out 4: the root has children 1..4; two segments.
    const auto sends = root_sends("kary", 8, 4, 2048, 1024);
    ASSERT_EQ(sends.size(), 8u);
    for (int c = 0; c < 4; ++c) EXPECT_TRUE(sends[c].send_deps.empty()) << "segment 0, child " << c;
    for (int c = 4; c < 8; ++c) {
        std::vector<StepId> deps = sends[c].send_deps;
        std::sort(deps.begin(), deps.end());
        EXPECT_EQ(deps, (std::vector<StepId>{sends[0].id, sends[1].id, sends[2].id, sends[3].id}))
            << "segment 1, child " << c - 4 << " must wait for all of segment 0's sends";
    }
}

TEST(ChildSends, BinomialSendsOneAfterAnother) {
    const auto sends = root_sends("binomial", 8, 2, 2048, 1024);
    ASSERT_EQ(sends.size(), 6u);  // children 4, 2, 1; two segments
    EXPECT_TRUE(sends[0].send_deps.empty());
    for (std::size_t i = 1; i < sends.size(); ++i)
        EXPECT_EQ(sends[i].send_deps, (std::vector<StepId>{sends[i - 1].id})) << "send " << i;
}
