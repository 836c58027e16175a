// Linear (flat-tree) broadcast — paper 002 §4.2, Table 2 "Linear".
// The root sends every segment to every other rank in turn.
//
//        root
//    /  /  |  \  \  .
//   1  2   3  ...  P-1
//
// Cost: Hockney n_s (P-1) (alpha(m_s) + m_s beta(m_s)); PLogP L + n_s (P-1) g(m_s).
//
// References: [P002] §4.2, Table 2 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

Schedule bcast_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, flat_tree(r.size, r.root, r.rank), Segments(r.bytes, r.params.segment), Buf::Out);
    return s;
}

}  // namespace gridcoll::detail
