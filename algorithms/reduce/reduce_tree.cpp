// Tree reductions — paper 002 §4.2 "Reduce", Table 3: the generalised reduce over the virtual
// topologies pipeline, binomial, binary and k-chain, all segmented (one engine, several trees).
// Every node combines its own segment with its children's (in increasing rank order) and sends
// the result to its parent; segments pipeline through the tree.
//
//   pipeline:  0 <- 1 <- 2 <- ... <- P-1
//   binomial:  0 <- {1, 2 <- 3, 4 <- {5, 6 <- 7}}   (children combined smallest subtree first)
//
// Cost (Table 3): pipeline PLogP (P-1)(L + max{g, o_r + gamma m_s}) + (n_s-1)(max{g, o_r + gamma m_s} + o_s);
//                 binomial PLogP ceil(log2 P)(L + n_s max{g, o_r + gamma m_s + o_s}).
//
// Order: pipeline, k-chain and binomial trees give every child a contiguous block of higher
// ranks, so combining `mine op child` keeps rank order when the tree is rooted at rank 0. For a
// non-commutative operation and root != 0 they reduce to rank 0 and forward the result to the
// root (one extra message, as MPICH does). Binary (breadth-first k-ary) trees do not keep rank
// order and refuse non-commutative operations.
//
// References: [P002] §4.2, Table 3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

#include <algorithm>

namespace gridcoll::detail {

namespace {

using TreeFn = TreeNode (*)(int size, int root, int rank, int k);

Schedule ordered_tree_reduce(const Request& r, TreeFn tree) {
    Schedule s(r.rank, r.size);
    const Segments segs(r.bytes, r.params.segment, r.elem);
    // A non-commutative reduction runs on the tree rooted at rank 0 (whose subtrees are rank
    // blocks in order) and rank 0 forwards the result to the real root.
    const int tree_root = r.commutative ? r.root : 0;
    const bool forward = tree_root != r.root;
    const auto finished =
        tree_reduce(s, tree(r.size, tree_root, r.rank, r.params.fanout), segs, /*root_into_out=*/!forward);
    if (forward && r.rank == tree_root)
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.send(r.root, segs.span(Buf::Tmp, k), {finished[k]});
    if (forward && r.rank == r.root)
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.recv(tree_root, segs.span(Buf::Out, k));
    return s;
}

TreeNode chain1(int size, int root, int rank, int) { return kchain_tree(size, root, rank, 1); }
TreeNode chaink(int size, int root, int rank, int k) { return kchain_tree(size, root, rank, k); }
TreeNode flat(int size, int root, int rank, int) { return flat_tree(size, root, rank); }

// Binomial children listed smallest subtree first, so `mine op child` follows rank order.
TreeNode binomial_ascending(int size, int root, int rank, int) {
    TreeNode t = binomial_tree(size, root, rank);
    std::reverse(t.children.begin(), t.children.end());
    return t;
}

}  // namespace

Schedule reduce_flat(const Request& r) { return ordered_tree_reduce(r, flat); }
Schedule reduce_pipeline(const Request& r) { return ordered_tree_reduce(r, chain1); }
Schedule reduce_kchain(const Request& r) { return ordered_tree_reduce(r, chaink); }
Schedule reduce_binomial(const Request& r) { return ordered_tree_reduce(r, binomial_ascending); }

Schedule reduce_binary(const Request& r) {
    if (!r.commutative) throw_needs_commutative(r, "binary");
    Schedule s(r.rank, r.size);
    tree_reduce(s, kary_tree(r.size, r.root, r.rank, 2), Segments(r.bytes, r.params.segment, r.elem));
    return s;
}

}  // namespace gridcoll::detail
