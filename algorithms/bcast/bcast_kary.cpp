// k-ary tree broadcast — paper 002 §4.2 (binary tree, k = 2) generalised to fan-out k, the
// single-layer tree of degree d of paper 000 §3 (MagPIe's segmented d-ary broadcast).
//
//            0                 k = 2 (binary): children of v are 2v+1, 2v+2
//          /   \  .
//         1     2
//        / \   / \  .
//       3   4 5   6
//
// Cost: height h = ceil(log_k((k-1)P + 1)) - 1; Hockney (h + n_s - 1) k (alpha(m_s) + m_s beta(m_s));
//       PLogP (binary) (ceil(log2(P+1)) - 1)(L + 2 g(m_s)) + (n_s - 1) max{2 g, o_r + g + o_s}.
//
// A node posts a segment's sends to all its children at once and completes them before the next
// segment, as Open MPI's generic tree engine does (its binary and k-ary broadcasts): the sends
// then cross different links side by side, whatever the MPI library's send-completion rule.
//
// References: [P002] §4.2; [P000] §3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

Schedule bcast_kary(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, kary_tree(r.size, r.root, r.rank, r.params.fanout), Segments(r.bytes, r.params.segment), Buf::Out,
               0, nullptr, ChildSends::Together);
    return s;
}

Schedule bcast_binary(const Request& r) {
    Request q = r;
    q.params.fanout = 2;
    return bcast_kary(q);
}

}  // namespace gridcoll::detail
