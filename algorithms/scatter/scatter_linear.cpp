// Linear scatter — paper 003 (flat tree), MPICH's MPI_Scatter for small communicators.
// The root sends block j, In[j*m, (j+1)*m), to rank j (segmented), in increasing vrank order,
// and copies its own block In -> Out.
//
//        root
//      /  |  \ ...      P-1 messages of m bytes, all leaving the root
//     1   2   3
//
// Cost: Hockney (P-1)(n_s alpha + m beta), n_s = ceil(m / m_s) segments.
//
// References: [P003] §5, Table 2 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule scatter_linear(const Request& r) {
    return linear_blocks(r, Blocks::FromRoot);
}

}  // namespace gridcoll::detail
