// Pipeline (chain) broadcast — paper 002 §4.2, Table 2 "Pipeline".
// Segments flow from the root along one chain of all ranks: root -> 1 -> 2 -> ... -> P-1.
//
// Cost: Hockney (P + n_s - 2)(alpha(m_s) + m_s beta(m_s)); PLogP (P-1)(L + g(m_s)) + (n_s-1) g(m_s).
//
// References: [P002] §4.2, Table 2 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

Schedule bcast_pipeline(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, kchain_tree(r.size, r.root, r.rank, 1), Segments(r.bytes, r.params.segment), Buf::Out);
    return s;
}

}  // namespace gridcoll::detail
