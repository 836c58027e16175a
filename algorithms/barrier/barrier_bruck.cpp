// Bruck (dissemination) barrier — paper 002 §4.2 "Barrier", Table 1 "Bruck"; Bruck, Ho, Kipnis,
// Upfal, Weathersby, IEEE TPDS 8(11) 1997. At step k rank r sends a zero-byte message to
// (r + 2^k) mod P and receives one from (r - 2^k) mod P; after ceil(log2 P) steps every rank
// has heard, directly or not, from all others.
//
//   P = 5     k = 0 (+1)      k = 1 (+2)      k = 2 (+4)
//   rank 0    -> 1, <- 4      -> 2, <- 3      -> 4, <- 1
//   rank r    -> r+1, <- r-1  -> r+2, <- r-2  -> r+4, <- r-4      (mod P)
//
// Cost: Hockney ceil(log2 P) alpha; PLogP ceil(log2 P) (L + g).
//
// References: [P002] §4.2, Table 1; [Bruck97] (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule barrier_bruck(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    StepId got = kNoStep;  // each step forwards what the previous steps have heard
    for (int d = 1; d < P; d <<= 1) {
        s.send((r.rank + d) % P, Span{}, {got});
        got = s.recv((r.rank - d + P) % P, Span{}, {got});
    }
    return s;
}

}  // namespace gridcoll::detail
