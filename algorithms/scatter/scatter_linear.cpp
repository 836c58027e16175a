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
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule scatter_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    const Segments segs(m, r.params.segment);
    if (r.rank != r.root) {
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.recv(r.root, segs.span(Buf::Out, k));
        return s;
    }
    if (m > 0) s.copy(Span{Buf::In, r.root * m, m}, Span{Buf::Out, 0, m});
    for (int v = 1; v < r.size; ++v) {
        const int j = to_rank(v, r.root, r.size);
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.send(j, segs.span(Buf::In, k, j * m));
    }
    return s;
}

}  // namespace gridcoll::detail
