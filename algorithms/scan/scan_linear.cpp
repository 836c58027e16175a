// Linear (pipelined) inclusive scan — MPICH's MPI_Scan for small communicators (Thakur,
// Rabenseifner, Gropp 2005 describe it as the simple linear algorithm): rank r receives the
// prefix of ranks 0..r-1 from r-1, combines it on the left of its own input, keeps the result
// and forwards it to r+1. Segments (params.segment) pipeline down the chain.
//
//   0 --[0]--> 1 --[0..1]--> 2 --[0..2]--> ... --[0..P-2]--> P-1
//
// Cost (Hockney, n_s segments of m_s bytes): (P + n_s - 2)(alpha + m_s beta + m_s gamma);
// unsegmented (P-1)(alpha + m beta + m gamma).
//
// Order: the received prefix covers ranks 0..r-1 and goes on the left: rank order is kept.
#include "../core/builders.hpp"
#include "gridcoll/algorithms/segments.hpp"

namespace gridcoll::detail {

Schedule scan_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    const Segments segs(r.bytes, r.params.segment, r.elem);
    const bool first = r.rank == 0, last = r.rank == r.size - 1;
    for (std::uint64_t k = 0; k < segs.count(); ++k) {
        const Span in = segs.span(Buf::In, k), out = segs.span(Buf::Out, k);
        if (first) {  // the prefix is my input: forward it and keep a copy, independently
            if (!last) s.send(r.rank + 1, in);
            s.copy(in, out);
            continue;
        }
        // Receive the prefix straight into Out, then Out = prefix op mine.
        const StepId got = s.recv(r.rank - 1, out);
        const StepId done = s.reduce(in, out, Order::DstLeft, {got});
        if (!last) s.send(r.rank + 1, out, {done});
    }
    return s;
}

}  // namespace gridcoll::detail
