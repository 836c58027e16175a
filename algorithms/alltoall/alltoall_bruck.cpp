// Bruck alltoall — Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient algorithms for all-to-all
// communications in multiport message-passing systems", IEEE TPDS 8(11) 1997 (the index
// algorithm with radix 2; paper 002 cites it as [17]).
//   1. rotate: Tmp block i = In block (r+i) mod P (the block that must travel i ranks on);
//   2. round k (2^k < P): pack every block whose index has bit k set, send the pack to
//      (r + 2^k) mod P, receive the same indices from (r - 2^k) mod P and unpack them in place;
//   3. inverse rotation: Out block (r-i) mod P = Tmp block i.
//
//   P = 5, rank r     index:  0  1  2  3  4
//   round 0 (+1)              .  x  .  x  .     blocks 1, 3 -> r+1 (one message)
//   round 1 (+2)              .  .  x  x  .     blocks 2, 3 -> r+2
//   round 2 (+4)              .  .  .  .  x     block  4    -> r+4
//
// Tmp: [0, P m) the rotated blocks, then a send pack and a receive pack of floor(P/2) blocks.
// Cost: ceil(log2 P) rounds of one message of at most floor(P/2) blocks (Bruck et al.: C1 =
//       ceil(log2 P) start-ups, C2 <= m ceil(log2 P) P/2 bytes). Hockney
//       <= ceil(log2 P)(alpha + floor(P/2) m beta), PLogP <= ceil(log2 P)(L + g(floor(P/2) m)),
//       against (P-1)(alpha + m beta) for pairwise: fewer, larger messages, so it wins for small m.
//
// References: [Bruck97]; [P002] (its ref. 17) (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

#include <vector>

namespace gridcoll::detail {

Schedule alltoall_bruck(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const auto at = [m](std::uint64_t i) { return i * m; };
    const std::uint64_t pack = at(P), unpack = at(P + P / 2);  // the two packing areas in Tmp
    s.need_tmp(at(P + 2 * (P / 2)));
    const auto tmp = [&](std::uint64_t off) { return Span{Buf::Tmp, off, m}; };

    // Per block of Tmp: the step that last wrote it and the step that last read it.
    std::vector<StepId> wrote(P), read(P, kNoStep);
    for (int i = 0; i < P; ++i) wrote[i] = s.copy(Span{Buf::In, at((r.rank + i) % P), m}, tmp(at(i)));

    StepId sent = kNoStep;         // last send of the pack area
    std::vector<StepId> unpacked;  // last round's reads of the receive area
    for (int d = 1; d < P; d <<= 1) {
        std::vector<int> idx;
        for (int i = 1; i < P; ++i)
            if (i & d) idx.push_back(i);
        const std::uint64_t n = idx.size();
        std::vector<StepId> packed;
        for (std::uint64_t j = 0; j < n; ++j) {
            read[idx[j]] = s.copy(tmp(at(idx[j])), tmp(pack + at(j)), {wrote[idx[j]], sent});
            packed.push_back(read[idx[j]]);
        }
        Step snd;
        snd.op = Op::Send;
        snd.peer = (r.rank + d) % P;
        snd.src = Span{Buf::Tmp, pack, at(n)};
        sent = s.add(snd, packed);
        Step rcv;
        rcv.op = Op::Recv;
        rcv.peer = (r.rank - d + P) % P;
        rcv.dst = Span{Buf::Tmp, unpack, at(n)};
        const StepId got = s.add(rcv, unpacked);
        unpacked.clear();
        for (std::uint64_t j = 0; j < n; ++j) {
            wrote[idx[j]] = s.copy(tmp(unpack + at(j)), tmp(at(idx[j])), {got, read[idx[j]]});
            unpacked.push_back(wrote[idx[j]]);
        }
    }
    for (int i = 0; i < P; ++i) s.copy(tmp(at(i)), Span{Buf::Out, at((r.rank - i + P) % P), m}, {wrote[i]});
    return s;
}

}  // namespace gridcoll::detail
