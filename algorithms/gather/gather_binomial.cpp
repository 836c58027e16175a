// Binomial gather — MPICH's MPI_Gather (Thakur, Rabenseifner, Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 2005); the mirror of binomial scatter.
// Up the binomial tree of tree.hpp: a leaf sends its block; an inner node collects its
// subtree's blocks (vranks [v, v + size), contiguous) in Tmp, then sends the whole range to its
// parent. The root receives each child's range straight into Out in rank order; a range that
// wraps past rank P-1 travels as two messages.
//
//   vrank:      0                    7 -> 6, 5 -> 4, 3 -> 2, 1 -> 0
//           /   |   \                6 -> 4: blocks 6,7      2 -> 0: blocks 2,3
//          4    2    1               4 -> 0: blocks 4..7
//         / \   |
//        6   5  3
//        |
//        7
//
// Cost: Hockney ceil(log2 P) alpha + (P-1) m beta (the root receives (P-1) m bytes in all).
#include <vector>

#include "../core/builders.hpp"
#include "../core/engines.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule gather_binomial(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.bytes == 0) return s;
    const BinomialBlocks b = binomial_blocks(r);
    // Children from the smallest subtree up: the small ones finish first.
    const std::vector<int> kids(b.t.children.rbegin(), b.t.children.rend());
    if (b.v == 0) {  // the root receives straight into Out, in rank order
        binomial_root_blocks(s, r, kids, Blocks::ToRoot);
        return s;
    }
    if (kids.empty()) {  // a leaf: n = 1, one piece
        s.send(b.t.parent, Span{Buf::In, 0, b.m});
        return s;
    }
    s.need_tmp(b.bytes(b.n));
    std::vector<StepId> done{s.copy(Span{Buf::In, 0, b.m}, Span{Buf::Tmp, 0, b.m})};
    for (int c : kids) {
        const int cv = to_vrank(c, r.root, r.size);
        done.push_back(s.recv(c, Span{Buf::Tmp, b.bytes(cv - b.v), b.bytes(binomial_subtree_size(r.size, cv))}));
    }
    for (VrankRun p : b.pieces) {
        Step send;
        send.op = Op::Send;
        send.peer = b.t.parent;
        send.src = Span{Buf::Tmp, b.bytes(p.v - b.v), b.bytes(p.n)};
        s.add(send, done);
    }
    return s;
}

}  // namespace gridcoll::detail
