// Binomial scatter — MPICH's MPI_Scatter (Thakur, Rabenseifner, Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 2005).
// Down the binomial tree of tree.hpp, each node receives from its parent the blocks of its whole
// subtree (vranks [v, v + size), contiguous), keeps its own and forwards each child's range.
// Vrank order is rank order rotated by the root, so at the root a child's range can wrap past
// rank P-1 in In: the root then sends it as two messages (the child receives it as two).
//
//   vrank:      0                    0 -> 4: blocks 4..7     4 -> 6: blocks 6,7
//           /   |   \                0 -> 2: blocks 2,3      4 -> 5: block 5
//          4    2    1               0 -> 1: block 1         2 -> 3: block 3
//         / \   |                                            6 -> 7: block 7
//        6   5  3
//        |
//        7
//
// Cost: Hockney ceil(log2 P) alpha + (P-1) m beta (the root sends (P-1) m bytes in all).
#include <vector>

#include "../core/builders.hpp"
#include "../core/engines.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule scatter_binomial(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.bytes == 0) return s;
    const BinomialBlocks b = binomial_blocks(r);
    if (b.v == 0) {  // the root sends straight from In, in rank order
        binomial_root_blocks(s, r, b.t.children, Blocks::FromRoot);
        return s;
    }
    // My subtree's blocks, in vrank order: straight into Out at a leaf, into Tmp otherwise.
    const Buf into = b.t.children.empty() ? Buf::Out : Buf::Tmp;
    if (into == Buf::Tmp) s.need_tmp(b.bytes(b.n));
    StepId got[2] = {kNoStep, kNoStep};  // at most two pieces
    for (std::size_t i = 0; i < b.pieces.size(); ++i)
        got[i] = s.recv(b.t.parent, Span{into, b.bytes(b.pieces[i].v - b.v), b.bytes(b.pieces[i].n)});
    if (into == Buf::Out) return s;
    s.copy(Span{Buf::Tmp, 0, b.m}, Span{Buf::Out, 0, b.m}, {got[0]});
    for (int c : b.t.children) {
        const int cv = to_vrank(c, r.root, r.size);
        s.send(c, Span{Buf::Tmp, b.bytes(cv - b.v), b.bytes(binomial_subtree_size(r.size, cv))}, {got[0], got[1]});
    }
    return s;
}

}  // namespace gridcoll::detail
