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
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule gather_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    const Segments segs(m, r.params.segment);
    if (r.rank != r.root) {
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.send(r.root, segs.span(Buf::In, k));
        return s;
    }
    if (m > 0) s.copy(Span{Buf::In, 0, m}, Span{Buf::Out, r.root * m, m});
    for (int v = 1; v < r.size; ++v) {
        const int i = to_rank(v, r.root, r.size);
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.recv(i, segs.span(Buf::Out, k, i * m));
    }
    return s;
}

}  // namespace gridcoll::detail
