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
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule scatter_binomial(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const TreeNode t = binomial_tree(P, r.root, r.rank);
    const int v = to_vrank(r.rank, r.root, P);
    auto bytes = [&](int n) { return static_cast<std::uint64_t>(n) * m; };

    if (v == 0) {  // the root sends straight from In, in rank order
        s.copy(Span{Buf::In, bytes(r.root), m}, Span{Buf::Out, 0, m});
        for (int c : t.children) {
            const int cv = to_vrank(c, r.root, P);
            for (VrankRun p : vrank_runs(cv, binomial_subtree_size(P, cv), r.root, P))
                s.send(c, Span{Buf::In, bytes(to_rank(p.v, r.root, P)), bytes(p.n)});
        }
        return s;
    }
    // My subtree's blocks, in vrank order: straight into Out at a leaf, into Tmp otherwise.
    const int n = binomial_subtree_size(P, v);
    const Buf into = t.children.empty() ? Buf::Out : Buf::Tmp;
    if (into == Buf::Tmp) s.need_tmp(bytes(n));
    const bool from_root = t.parent == r.root;
    const std::vector<VrankRun> pieces = from_root ? vrank_runs(v, n, r.root, P) : std::vector<VrankRun>{{v, n}};
    StepId got[2] = {kNoStep, kNoStep};  // at most two pieces
    for (std::size_t i = 0; i < pieces.size(); ++i)
        got[i] = s.recv(t.parent, Span{into, bytes(pieces[i].v - v), bytes(pieces[i].n)});
    if (into == Buf::Out) return s;
    s.copy(Span{Buf::Tmp, 0, m}, Span{Buf::Out, 0, m}, {got[0]});
    for (int c : t.children) {
        const int cv = to_vrank(c, r.root, P);
        s.send(c, Span{Buf::Tmp, bytes(cv - v), bytes(binomial_subtree_size(P, cv))}, {got[0], got[1]});
    }
    return s;
}

}  // namespace gridcoll::detail
