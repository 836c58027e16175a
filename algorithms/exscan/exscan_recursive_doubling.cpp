// Recursive-doubling exclusive scan — the log-round prefix of Hillis & Steele (1986), as MPICH
// runs MPI_Exscan (Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
// Operations in MPICH", IJHPCA 19(1), 2005), with the shift pattern of scan_recursive_doubling:
// in round k rank r sends its inclusive partial prefix (ranks max(0, r-2^k+1)..r) to r+2^k and
// receives that of r-2^k, which it puts on the left of both its exclusive result (Out) and its
// inclusive partial (scratch, only while a later round still sends it).
//
//   after round k: Out at r = ranks max(0, r-2^(k+1)+1)..r-1, partial = the same and r
//
// Cost (Hockney): ceil(log2 P)(alpha + m beta + 2 m gamma). Rank order is kept.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule exscan_recursive_doubling(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const int P = r.size, me = r.rank;
    const Span in{Buf::In, 0, m}, out{Buf::Out, 0, m};
    Span partial = in;       // my inclusive partial prefix: In until a round extends it
    bool have_out = false;   // Out holds my exclusive partial
    StepId partial_done = kNoStep, out_done = kNoStep;
    std::uint64_t tmp = 0;
    for (int d = 1; d < P; d <<= 1) {
        const StepId snd = me + d < P ? s.send(me + d, partial, {partial_done}) : kNoStep;
        if (me - d < 0) continue;
        const Span got_span{Buf::Tmp, tmp, m};
        tmp += m;
        const StepId got = s.recv(me - d, got_span);
        if (!have_out) out_done = s.copy(got_span, out, {got});
        else out_done = s.reduce(got_span, out, Order::SrcLeft, {got, out_done});
        have_out = true;
        if (me + 2 * d >= P) continue;  // no later round sends my partial
        if (partial.buf == Buf::In) {   // partial = received op In, in fresh scratch
            const Span next{Buf::Tmp, tmp, m};
            tmp += m;
            const StepId c = s.copy(in, next);
            partial_done = s.reduce(got_span, next, Order::SrcLeft, {got, c});
            partial = next;
        } else {
            partial_done = s.reduce(got_span, partial, Order::SrcLeft, {got, snd, partial_done});
        }
    }
    s.need_tmp(tmp);
    return s;
}

}  // namespace gridcoll::detail
