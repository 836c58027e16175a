// Binomial-tree broadcast — paper 002 §4.2, Table 2 "Binomial" (MPICH's MPI_Bcast, paper 001).
// In round j every rank that has the message sends it 2^j ranks further (largest subtree first).
//
//          0
//      /   |   \        ceil(log2 P) rounds
//     4    2    1
//    / \   |
//   6   5  3
//   |
//   7
//
// Cost: Hockney ceil(log2 P) n_s (alpha(m_s) + m_s beta(m_s)); PLogP ceil(log2 P)(L + n_s g(m_s)).
//
// References: [P002] §4.2, Table 2; [P001] (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

Schedule bcast_binomial(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, binomial_tree(r.size, r.root, r.rank), Segments(r.bytes, r.params.segment), Buf::Out);
    return s;
}

}  // namespace gridcoll::detail
