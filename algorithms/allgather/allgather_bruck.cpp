// Bruck allgather — Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient Algorithms for All-to-All
// Communications in Multiport Message-Passing Systems", IEEE TPDS 8(11), 1997 (also MPICH's
// MPI_Allgather for short messages and non-power-of-two P).
// Tmp holds blocks in the order "me, me+1, me+2, ...". In round k (d = 2^k) each rank sends its
// first min(d, P-d) blocks to rank me-d and appends the same count received from rank me+d.
// After ceil(log2 P) rounds Tmp block i is rank (me+i)'s block; a rotation puts it into Out.
//
//   P = 5, rank 0's Tmp:   [0]  ->  [0 1]  ->  [0 1 2 3]  ->  [0 1 2 3 4]
//                       round 0: +1 block from 1; round 1: +2 from 2; round 2: +1 from 4
//
// Cost: Hockney ceil(log2 P) alpha + (P-1) m beta (plus a local copy of P m bytes).
//
// References: [Bruck97] (algorithms/REFERENCES.md).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"

namespace gridcoll::detail {

namespace {

StepId copy_after(Schedule& s, Span src, Span dst, const std::vector<StepId>& deps) {
    Step c;
    c.op = Op::Copy;
    c.src = src;
    c.dst = dst;
    return s.add(c, deps);
}

}  // namespace

Schedule allgather_bruck(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    auto tmp = [&](int first, int n) {
        return Span{Buf::Tmp, static_cast<std::uint64_t>(first) * m, static_cast<std::uint64_t>(n) * m};
    };
    auto out = [&](int first, int n) {
        return Span{Buf::Out, static_cast<std::uint64_t>(first) * m, static_cast<std::uint64_t>(n) * m};
    };
    s.need_tmp(static_cast<std::uint64_t>(P) * m);
    std::vector<StepId> have{s.copy(Span{Buf::In, 0, m}, tmp(0, 1))};
    for (int d = 1; d < P; d <<= 1) {
        const int n = std::min(d, P - d);
        Step send;
        send.op = Op::Send;
        send.peer = (me - d + P) % P;
        send.src = tmp(0, n);
        s.add(send, have);
        have.push_back(s.recv((me + d) % P, tmp(d, n)));
    }
    // Tmp block i belongs to rank (me + i) mod P.
    copy_after(s, tmp(0, P - me), out(me, P - me), have);
    if (me > 0) copy_after(s, tmp(P - me, me), out(0, me), have);
    return s;
}

}  // namespace gridcoll::detail
