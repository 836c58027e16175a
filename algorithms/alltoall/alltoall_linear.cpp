// Linear alltoall — paper 002 §4.2 "Alltoall", Table 4 "Linear".
// Every rank posts, at once, a send of block j of In to every rank j and a receive of block i
// of Out from every rank i, each cut into segments; its own block is copied locally. Rank r
// starts with its right neighbour (r+1, r+2, ...) and receives from its left (r-1, r-2, ...),
// so the ranks do not all hit rank 0 first.
//
//   rank r:  In  [ b0 | b1 | ... | b(P-1) ]      block j -> rank j   (b_r: local copy)
//            Out [ b0 | b1 | ... | b(P-1) ]      block i <- rank i
//
//        0 <--> 1
//        ^ \  / ^        all P(P-1) directed pairs at once, n_s segments each
//        |  \/  |
//        |  /\  |
//        v /  \ v
//        3 <--> 2
//
// Cost (Table 4, whose printed fractions are the two lines of a sum):
//   Hockney P (alpha(m_s) + m_s beta(m_s)) + (P-1)(n_s P + 1 - P/2) alpha(m_s)
//   PLogP   P L + (P-1)(n_s P + 1 - P/2) g(m_s)
// The paper's ranks start one after another (rank i+1 once it has rank i's block); here every
// rank starts at once and the order is left to the network.
//
// References: [P002] §4.2, Table 4 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

#include "gridcoll/algorithms/segments.hpp"

namespace gridcoll::detail {

Schedule alltoall_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const Segments segs(m, r.params.segment);
    const auto block = [m](int i) { return static_cast<std::uint64_t>(i) * m; };
    s.copy(Span{Buf::In, block(r.rank), m}, Span{Buf::Out, block(r.rank), m});
    for (int i = 1; i < P; ++i) {
        const int to = (r.rank + i) % P, from = (r.rank - i + P) % P;
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.send(to, segs.span(Buf::In, k, block(to)));
        for (std::uint64_t k = 0; k < segs.count(); ++k) s.recv(from, segs.span(Buf::Out, k, block(from)));
    }
    return s;
}

}  // namespace gridcoll::detail
