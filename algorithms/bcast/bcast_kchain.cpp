// k-chain broadcast — paper 002 §4.1 ("k-chain tree"), Open MPI's bcast "chain" with
// chain fan-out k: the root feeds k pipelines, each over about (P-1)/k ranks.
//
//          0
//        /   \        k = 2
//       1     5
//       |     |
//       2     6
//       ...   ...
//
// Cost: Hockney (ceil((P-1)/k) + n_s - 1) k (alpha(m_s) + m_s beta(m_s)) at the root's pace.
//
// References: [P002] §4.1 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

Schedule bcast_kchain(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, kchain_tree(r.size, r.root, r.rank, r.params.fanout), Segments(r.bytes, r.params.segment),
               Buf::Out);
    return s;
}

}  // namespace gridcoll::detail
