// Recursive-doubling inclusive scan — Hillis & Steele's data-parallel prefix (1986), the
// log-round scan of MPICH (Thakur, Rabenseifner, Gropp 2005). In round k = 0, 1, ... rank r
// sends its partial prefix, which covers ranks max(0, r-2^k+1)..r, to r+2^k (if < P) and
// receives the partial prefix of r-2^k (if >= 0), which it combines on the left.
//
//   rank       0     1     2     3     4     5
//   k = 0      0 --> 1 --> 2 --> 3 --> 4 --> 5        each rank to r+1
//   k = 1      0 ------> 2,  1 ------> 3, ...          each rank to r+2
//   k = 2      0 ------------------> 4, 1 -----> 5     each rank to r+4
//   after k:   rank r holds ranks max(0, r-2^(k+1)+1)..r
//
// MPICH exchanges with r XOR 2^k and keeps the block's total apart from the prefix in a second
// vector; with the shift pattern the partial prefix is the result itself, so it lives in Out
// and Tmp only receives (one combination per round instead of two).
//
// Cost (Hockney): ceil(log2 P)(alpha + m beta + m gamma).
//
// Order: the received block r-2^(k+1)+1..r-2^k ends just below mine, so it goes on the left:
// rank order is kept.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule scan_recursive_doubling(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const int P = r.size, me = r.rank;
    const Span in{Buf::In, 0, m}, out{Buf::Out, 0, m}, tmp{Buf::Tmp, 0, m};
    bool in_out = false;                       // my prefix is in Out (else still just In)
    StepId last = kNoStep, tmp_read = kNoStep;  // last write of Out, last read of Tmp
    for (int d = 1; d < P; d <<= 1) {
        const StepId snd = me + d < P ? s.send(me + d, in_out ? out : in, {last}) : kNoStep;
        if (me - d < 0) continue;
        if (!in_out) {  // first round: receive into Out, Out = received op mine
            const StepId got = s.recv(me - d, out);
            last = s.reduce(in, out, Order::DstLeft, {got});
            in_out = true;
            continue;
        }
        s.need_tmp(m);
        const StepId got = s.recv(me - d, tmp, {tmp_read});
        last = tmp_read = s.reduce(tmp, out, Order::SrcLeft, {got, snd, last});
    }
    if (!in_out) s.copy(in, out);  // rank 0 (and P = 1)
    return s;
}

}  // namespace gridcoll::detail
