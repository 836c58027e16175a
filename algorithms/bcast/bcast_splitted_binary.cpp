// Splitted-binary broadcast — paper 002 §4.2, Table 2 "Splitted-binary".
// The message is cut in two halves. The left half goes down the left binary subtree, the right
// half down the right one (both segmented, pipelined; the root serves segment k of both halves
// before segment k + 1 of either). In the final phase every node swaps halves with its partner
// on the other side, once its own tree phase is over (its last segment in and passed on), as the
// paper describes and Open MPI's split_bintree does. We build the two subtrees over the vrank
// ranges [1, 1+nl) and [1+nl, P) with nl = ceil((P-1)/2), so they differ by at most one node;
// the left node without a partner receives the right half from the root after the root's tree
// phase, as the paper describes.
//
//            0                 left half:  0 -> 1 -> {3, 4}
//          /   \               right half: 0 -> 2 -> {5}     (vrank layout below is BFS per side)
//         1     2              exchange:   1<->2, 3<->5, 4 <- root
//        / \    |
//       3   4   5
//
// Every node's sends form one chain per segment (children in order, then the partner), and a
// node's receives of its partner's half wait for its tree phase, so no node receives two
// streams at once. (An earlier version sent each segment to the partner as soon as it arrived
// and let the root's three streams run independently: under SimGrid's max-min sharing those
// concurrent streams split the links, which PLogP's one-message-at-a-time ports do not model,
// and the final phase overlapped the tree phase; validation/plogp_vs_smpi.py measured the
// event simulator 8-36 % below SMPI on 32 ranks for 64 KiB to 4 MiB.)
//
// Cost: PLogP, n_h = ceil(n_s / 2) segments of m_h = min(m_s, m/2) bytes per half, full tree:
//       (ceil(log2(P+1)) - 1)(L + 2 g) + (n_h - 1) max{2 g, o_r + g + o_s}   (tree phase, paper 002)
//       + L + n_h g                                                          (final exchange)
//       (model::predict_corrected; the paper's PLogP row omits the exchange).
//
// References: [P002] §4.2, Table 2 (algorithms/REFERENCES.md).
#include <algorithm>

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
        // Tree phase: one chain of sends, segment k of the left half to the left child, then
        // segment k of the right half to the right child, before segment k + 1 of either (as the
        // tree engine's root does; paper 002's 2 g per segment). Final phase: the unpaired left
        // node's copy of the right half.
        StepId prev = kNoStep;
        for (std::uint64_t k = 0; k < std::max(left.count(), right.count()); ++k) {
            if (k < left.count()) prev = s.send(to_rank(1, r.root, P), left.span(Buf::Out, k), {prev});
            if (nr > 0 && k < right.count()) prev = s.send(to_rank(1 + nl, r.root, P), right.span(Buf::Out, k, half), {prev});
        }
        if (nl > nr)
            for (std::uint64_t k = 0; k < right.count(); ++k)
                prev = s.send(to_rank(nl, r.root, P), right.span(Buf::Out, k, half), {prev});
        return s;
    }
    const bool on_left = v < 1 + nl;
    const int j = on_left ? v - 1 : v - 1 - nl;       // index within its side
    const Segments& mine = on_left ? left : right;
    const Segments& other = on_left ? right : left;
    const std::uint64_t mine_base = on_left ? 0 : half, other_base = on_left ? half : 0;
    const TreeNode t = on_left ? side_tree(1, nl, v, r.root, P) : side_tree(1 + nl, nr, v, r.root, P);

    // Tree phase: my half down my side's tree (segments pipelined, children served in order).
    std::vector<StepId> gots(mine.count());
    StepId got = kNoStep, sent = kNoStep;
    for (std::uint64_t k = 0; k < mine.count(); ++k) {
        const Span seg = mine.span(Buf::Out, k, mine_base);
        got = gots[k] = s.recv(t.parent, seg);
        sent = kNoStep;
        for (int c : t.children) sent = s.send(c, seg, {got, sent});
    }
    // Final phase, once my tree phase is over (my last segment in and passed on): my half to my
    // partner, its half from it (or, unpaired, from the root). The receives wait for the tree
    // phase too, so under a rendezvous protocol my partner's data does not compete with my
    // parent's for my incoming link.
    const bool paired = on_left ? j < nr : true;
    const int partner = paired ? to_rank(on_left ? 1 + nl + j : 1 + j, r.root, P) : r.root;
    StepId prev = kNoStep;
    if (paired)
        for (std::uint64_t k = 0; k < mine.count(); ++k)
            prev = s.send(partner, mine.span(Buf::Out, k, mine_base), {gots[k], got, sent, prev});
    for (std::uint64_t k = 0; k < other.count(); ++k) s.recv(partner, other.span(Buf::Out, k, other_base), {got, sent});
    return s;
}

}  // namespace gridcoll::detail
