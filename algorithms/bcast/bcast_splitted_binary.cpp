// Splitted-binary broadcast — paper 002 §4.2, Table 2 "Splitted-binary".
// The message is cut in two halves. The left half goes down the left binary subtree, the right
// half down the right one (both segmented, pipelined); then every node swaps halves with its
// partner on the other side. We build the two subtrees over the vrank ranges [1, 1+nl) and
// [1+nl, P) with nl = ceil((P-1)/2), so they differ by at most one node; the left node without a
// partner receives the right half from the root, as the paper describes.
//
//            0                 left half:  0 -> 1 -> {3, 4}
//          /   \               right half: 0 -> 2 -> {5}     (vrank layout below is BFS per side)
//         1     2              exchange:   1<->2, 3<->5, 4 <- root
//        / \    |
//       3   4   5
//
// Cost: PLogP (ceil(log2(P+1)) - 1)(L + 2 g(m_s)) + (n_s/2 - 1) max{2 g, o_r + g + o_s} plus the
//       exchange of one half; about half the tree traffic of the binary tree.
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

namespace {

// Binary tree over vranks [first, first + count) hanging below `top` (vrank 0): the node at
// local index j has children 2j+1, 2j+2; local index 0 hangs below the root.
TreeNode side_tree(int first, int count, int v, int root, int size) {
    TreeNode t;
    const int j = v - first;
    t.parent = to_rank(j == 0 ? 0 : first + (j - 1) / 2, root, size);
    for (int c = 2 * j + 1; c <= 2 * j + 2; ++c)
        if (c < count) t.children.push_back(to_rank(first + c, root, size));
    return t;
}

}  // namespace

Schedule bcast_splitted_binary(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    if (P == 1 || r.bytes == 0) return s;
    const int nl = P / 2;        // ceil((P-1)/2) ranks on the left
    const int nr = P - 1 - nl;   // the rest on the right
    const std::uint64_t half = (r.bytes + 1) / 2;
    const Segments left(half, r.params.segment), right(r.bytes - half, r.params.segment);
    const int v = to_vrank(r.rank, r.root, P);

    if (v == 0) {
        TreeNode t;
        t.children.push_back(to_rank(1, r.root, P));
        tree_bcast(s, t, left, Buf::Out);
        if (nr > 0) {
            t.children = {to_rank(1 + nl, r.root, P)};
            tree_bcast(s, t, right, Buf::Out, half);
        }
        if (nl > nr) {  // the unpaired left node gets the right half from the root
            t.children = {to_rank(nl, r.root, P)};
            tree_bcast(s, t, right, Buf::Out, half);
        }
        return s;
    }
    const bool on_left = v < 1 + nl;
    const int j = on_left ? v - 1 : v - 1 - nl;       // index within its side
    const Segments& mine = on_left ? left : right;
    const Segments& other = on_left ? right : left;
    const std::uint64_t mine_base = on_left ? 0 : half, other_base = on_left ? half : 0;
    const TreeNode t = on_left ? side_tree(1, nl, v, r.root, P) : side_tree(1 + nl, nr, v, r.root, P);

    // Phase 1: my half down my side's tree; remember each segment's arrival.
    std::vector<StepId> got(mine.count());
    for (std::uint64_t k = 0; k < mine.count(); ++k) {
        const Span seg = mine.span(Buf::Out, k, mine_base);
        got[k] = s.recv(t.parent, seg);
        for (int c : t.children) s.send(c, seg, {got[k]});
    }
    // Phase 2: swap halves with the partner on the other side (or get it from the root).
    const bool paired = on_left ? j < nr : true;
    const int partner = paired ? to_rank(on_left ? 1 + nl + j : 1 + j, r.root, P) : r.root;
    for (std::uint64_t k = 0; k < other.count(); ++k) s.recv(partner, other.span(Buf::Out, k, other_base));
    if (paired)
        for (std::uint64_t k = 0; k < mine.count(); ++k) s.send(partner, mine.span(Buf::Out, k, mine_base), {got[k]});
    return s;
}

}  // namespace gridcoll::detail
