// Pairwise-exchange alltoall — paper 002 §4.2 "Alltoall", Table 4 "Pairwise exchange".
// In step i = 1 .. P-1 rank r sends its block for rank (r+i) mod P and receives the block of
// rank (r-i) mod P; a step starts when the previous one is done, so every rank has exactly
// one incoming and one outgoing message at a time. Messages are not segmented; the rank's own
// block is copied locally.
//
//   P = 4    step 1         step 2         step 3
//            0->1->2->3->0  0->2, 2->0     0->3->2->1->0
//                           1->3, 3->1
//
// Cost: Hockney (P-1)(alpha(m) + m beta(m)); PLogP (P-1)(L + g(m)).
//
// References: [P002] §4.2, Table 4 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule alltoall_pairwise(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const auto block = [m](int i) { return static_cast<std::uint64_t>(i) * m; };
    s.copy(Span{Buf::In, block(r.rank), m}, Span{Buf::Out, block(r.rank), m});
    StepId sent = kNoStep, got = kNoStep;  // the previous step's messages
    for (int i = 1; i < P; ++i) {
        const int to = (r.rank + i) % P, from = (r.rank - i + P) % P;
        const StepId snd = s.send(to, Span{Buf::In, block(to), m}, {sent, got});
        got = s.recv(from, Span{Buf::Out, block(from), m}, {sent, got});
        sent = snd;
    }
    return s;
}

}  // namespace gridcoll::detail
