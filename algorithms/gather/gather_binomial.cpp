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
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule gather_binomial(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const TreeNode t = binomial_tree(P, r.root, r.rank);
    const int v = to_vrank(r.rank, r.root, P);
    auto bytes = [&](int n) { return static_cast<std::uint64_t>(n) * m; };
    // Children from the smallest subtree up: the small ones finish first.
    const std::vector<int> kids(t.children.rbegin(), t.children.rend());

    if (v == 0) {  // the root receives straight into Out, in rank order
        s.copy(Span{Buf::In, 0, m}, Span{Buf::Out, bytes(r.root), m});
        for (int c : kids) {
            const int cv = to_vrank(c, r.root, P);
            for (VrankRun p : vrank_runs(cv, binomial_subtree_size(P, cv), r.root, P))
                s.recv(c, Span{Buf::Out, bytes(to_rank(p.v, r.root, P)), bytes(p.n)});
        }
        return s;
    }
    const int n = binomial_subtree_size(P, v);
    const bool to_root = t.parent == r.root;
    const std::vector<VrankRun> pieces = to_root ? vrank_runs(v, n, r.root, P) : std::vector<VrankRun>{{v, n}};
    if (kids.empty()) {  // a leaf: n = 1, one piece
        s.send(t.parent, Span{Buf::In, 0, m});
        return s;
    }
    s.need_tmp(bytes(n));
    std::vector<StepId> done{s.copy(Span{Buf::In, 0, m}, Span{Buf::Tmp, 0, m})};
    for (int c : kids) {
        const int cv = to_vrank(c, r.root, P);
        done.push_back(s.recv(c, Span{Buf::Tmp, bytes(cv - v), bytes(binomial_subtree_size(P, cv))}));
    }
    for (VrankRun p : pieces) {
        Step send;
        send.op = Op::Send;
        send.peer = t.parent;
        send.src = Span{Buf::Tmp, bytes(p.v - v), bytes(p.n)};
        s.add(send, done);
    }
    return s;
}

}  // namespace gridcoll::detail
