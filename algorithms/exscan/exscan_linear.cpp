// Linear (pipelined) exclusive scan — the chain of MPICH's linear scan (Thakur, Rabenseifner,
// Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005),
// shifted by one: rank r receives the prefix of ranks 0..r-1 from r-1 straight into Out (its
// result), combines its own input on the right into scratch and forwards that to r+1. Rank 0
// sends its input and gets nothing, as MPI_Exscan leaves rank 0's buffer undefined. Segments
// (params.segment) pipeline down the chain.
//
//   0 --[0]--> 1 --[0..1]--> 2 --[0..2]--> ... --[0..P-2]--> P-1
//
// Cost (Hockney, n_s segments of m_s bytes): (P + n_s - 2)(alpha + m_s beta + m_s gamma).
// Order: the received prefix covers ranks 0..r-1 and stays on the left: rank order is kept.
#include "../core/builders.hpp"
#include "gridcoll/algorithms/segments.hpp"

namespace gridcoll::detail {

Schedule exscan_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    const Segments segs(r.bytes, r.params.segment, r.elem);
    const bool first = r.rank == 0, last = r.rank == r.size - 1;
    if (!last && !first) s.need_tmp(r.bytes);
    for (std::uint64_t k = 0; k < segs.count(); ++k) {
        const Span in = segs.span(Buf::In, k), out = segs.span(Buf::Out, k), tmp = segs.span(Buf::Tmp, k);
        if (first) {
            if (!last) s.send(1, in);
            continue;
        }
        const StepId got = s.recv(r.rank - 1, out);
        if (last) continue;
        // Tmp = prefix op mine, forwarded; Out keeps the prefix.
        const StepId mine = s.copy(in, tmp);
        const StepId done = s.reduce(out, tmp, Order::SrcLeft, {got, mine});
        s.send(r.rank + 1, tmp, {done});
    }
    return s;
}

}  // namespace gridcoll::detail
