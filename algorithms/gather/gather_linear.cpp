// Linear gather — paper 003 (flat tree), MPICH's MPI_Gather for small communicators.
// Every rank sends its In (m bytes, segmented) to the root, which receives rank i's block into
// Out[i*m, (i+1)*m) in increasing vrank order and copies its own block In -> Out.
//
//     1   2   3
//      \  |  / ...      P-1 messages of m bytes, all arriving at the root
//        root
//
// Cost: Hockney (P-1)(n_s alpha + m beta), n_s = ceil(m / m_s) segments.
//
// References: [P003] §5, Table 2 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule gather_linear(const Request& r) {
    return linear_blocks(r, Blocks::ToRoot);
}

}  // namespace gridcoll::detail
