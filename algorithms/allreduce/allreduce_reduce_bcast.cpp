// Allreduce as reduce + broadcast — the composition of paper 002 §4.2 (Table 3 "binomial" reduce,
// then Table 2 "binomial" broadcast), as MPICH did before Rabenseifner's algorithm. Both phases
// run on the binomial tree rooted at rank 0, segmented with params.segment: rank 0 starts
// broadcasting segment k as soon as segment k of the reduction is complete.
//
//   reduce (children combined smallest subtree first)     bcast (largest subtree first)
//          0                                                     0
//      /   |   \         up: mine op child                  /   |   \      down
//     1    2    4                                          4    2    1
//          |   / \                                        / \   |
//          3  5   6                                      6   5  3
//                 |                                      |
//                 7                                      7
//
// Cost (Hockney, n_s segments of m_s bytes, m = n_s m_s):
//   unsegmented: 2 ceil(log2 P)(alpha + m beta) + ceil(log2 P) m gamma
//   segmented:   ceil(log2 P) n_s (2 alpha + 2 m_s beta + m_s gamma) at most (rank 0 serves
//                ceil(log2 P) children per segment in each phase)
//
// Order: the binomial tree rooted at rank 0 gives every child a contiguous block of higher ranks,
// so `mine op child`, smallest subtree first, keeps rank order (see reduce_tree.cpp).
//
// References: [P002] §4.2, Tables 2 and 3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

#include <algorithm>

namespace gridcoll::detail {

Schedule allreduce_reduce_bcast(const Request& r) {
    Schedule s(r.rank, r.size);
    const Segments segs(r.bytes, r.params.segment, r.elem);
    TreeNode up = binomial_tree(r.size, 0, r.rank);
    std::reverse(up.children.begin(), up.children.end());
    // Rank 0 ends the reduction with segment k in Out, finished by step done[k].
    const auto done = tree_reduce(s, up, segs, /*root_into_out=*/true);
    // Broadcast down the same tree; rank 0 sends segment k once its reduction is done.
    tree_bcast(s, binomial_tree(r.size, 0, r.rank), segs, Buf::Out, 0, &done);
    return s;
}

}  // namespace gridcoll::detail
