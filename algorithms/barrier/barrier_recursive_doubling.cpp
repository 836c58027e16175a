// Recursive-doubling barrier — paper 002 §4.2 "Barrier", Table 1 "Recursive Doubling".
// With p2 the largest power of two <= P: at step k rank r < p2 exchanges a zero-byte message
// with r XOR 2^k. When P is not a power of two the extra ranks r >= p2 first report to
// r - p2 and are released by it at the end (two extra steps).
//
//   P = 6, p2 = 4:   fold      k = 0          k = 1          unfold
//                    4 -> 0    0 <-> 1        0 <-> 2        0 -> 4
//                    5 -> 1    2 <-> 3        1 <-> 3        1 -> 5
//
// Cost: Hockney log2(P) alpha, PLogP log2(P) (L + g) when P is a power of two; otherwise
//       (floor(log2 P) + 2) alpha and (floor(log2 P) + 2) (L + g).
//
// References: [P002] §4.2, Table 1 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule barrier_recursive_doubling(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, p2 = floor_pow2(P);
    if (r.rank >= p2) {  // an extra rank: report to its partner, wait for the release
        s.send(r.rank - p2, Span{});
        s.recv(r.rank - p2, Span{});
        return s;
    }
    const bool has_extra = r.rank + p2 < P;
    StepId got = has_extra ? s.recv(r.rank + p2, Span{}) : kNoStep;
    for (int d = 1; d < p2; d <<= 1) {
        const int peer = r.rank ^ d;
        s.send(peer, Span{}, {got});
        got = s.recv(peer, Span{}, {got});
    }
    if (has_extra) s.send(r.rank + p2, Span{}, {got});
    return s;
}

}  // namespace gridcoll::detail
