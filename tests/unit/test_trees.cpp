// Trees: every rank but the root has one parent, the parent lists it as a child, and the tree
// reaches every rank from the root.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "gridcoll/algorithms/tree.hpp"

using namespace gridcoll;

namespace {

void expect_spanning_tree(const std::function<TreeNode(int, int, int)>& make, int P, int root) {
    std::vector<TreeNode> nodes;
    for (int r = 0; r < P; ++r) nodes.push_back(make(P, root, r));
    EXPECT_EQ(nodes[root].parent, -1);
    std::vector<int> seen(P, 0);
    std::vector<int> stack{root};
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        ASSERT_EQ(seen[v], 0) << "rank " << v << " reached twice (P=" << P << ", root=" << root << ")";
        seen[v] = 1;
        for (int c : nodes[v].children) {
            ASSERT_GE(c, 0);
            ASSERT_LT(c, P);
            EXPECT_EQ(nodes[c].parent, v) << "P=" << P << " root=" << root << " child " << c;
            stack.push_back(c);
        }
    }
    for (int r = 0; r < P; ++r) EXPECT_EQ(seen[r], 1) << "rank " << r << " unreachable (P=" << P << ", root=" << root << ")";
}

}  // namespace

TEST(Trees, AllShapesSpanEveryRankFromAnyRoot) {
    for (int P = 1; P <= 40; ++P)
        for (int root = 0; root < P; root += (P > 8 ? 3 : 1)) {
            expect_spanning_tree(flat_tree, P, root);
            expect_spanning_tree(binomial_tree, P, root);
            for (int k : {1, 2, 3, 7})
                expect_spanning_tree([k](int p, int rt, int r) { return kary_tree(p, rt, r, k); }, P, root);
            for (int k : {1, 2, 4, 64})
                expect_spanning_tree([k](int p, int rt, int r) { return kchain_tree(p, rt, r, k); }, P, root);
        }
}

TEST(Trees, BinomialDepthIsTheLargestPopcount) {
    for (int P = 1; P <= 70; ++P) {
        int height = 0, popcount = 0;
        for (int r = 0; r < P; ++r) {
            popcount = std::max(popcount, __builtin_popcount(static_cast<unsigned>(r)));
            int d = 0;
            for (int v = r; v != 0; v = binomial_tree(P, 0, v).parent) ++d;
            height = std::max(height, d);
        }
        EXPECT_EQ(height, popcount) << "P=" << P;
        EXPECT_LE(height, ceil_log2(static_cast<std::uint64_t>(P))) << "P=" << P;
    }
}

TEST(Trees, BinomialSubtreeSizesAddUp) {
    for (int P = 1; P <= 70; ++P) {
        for (int v = 0; v < P; ++v) {
            int sum = 1;
            for (int c : binomial_tree(P, 0, v).children) sum += binomial_subtree_size(P, c);
            EXPECT_EQ(sum, binomial_subtree_size(P, v)) << "P=" << P << " v=" << v;
        }
    }
}

TEST(Trees, KChainSplitsEvenly) {
    const TreeNode root = kchain_tree(11, 0, 0, 3);  // 10 ranks in chains of 4, 3, 3
    ASSERT_EQ(root.children, (std::vector<int>{1, 5, 8}));
    EXPECT_EQ(kchain_tree(11, 0, 4, 3).children.size(), 0u);
    EXPECT_EQ(kchain_tree(11, 0, 5, 3).parent, 0);
    EXPECT_EQ(kchain_tree(11, 0, 6, 3).parent, 5);
}
