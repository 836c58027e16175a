// Double-ring barrier — paper 002 §4.2 "Barrier", Table 1 "Double Ring".
// Rank 0 sends a zero-byte token to the right; every rank forwards it once it has it. The token
// goes round twice: after the first lap rank 0 knows everyone has entered, and a rank may leave
// once it receives the token the second time.
//
//        0 -> 1 -> 2 -> ... -> P-1        lap 1: "I have entered"
//        ^                      |         lap 2: "everyone has entered"
//        +----------------------+
//
// Cost: Hockney 2 P alpha; PLogP 2 P (L + g).
//
// References: [P002] §4.2, Table 1 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule barrier_double_ring(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size;
    if (P == 1) return s;
    const int right = (r.rank + 1) % P, left = (r.rank - 1 + P) % P;
    StepId got = kNoStep;  // the token's latest arrival
    for (int lap = 0; lap < 2; ++lap) {
        if (r.rank == 0) {  // rank 0 starts each lap and closes it
            s.send(right, Span{}, {got});
            got = s.recv(left, Span{}, {got});
        } else {
            got = s.recv(left, Span{}, {got});
            s.send(right, Span{}, {got});
        }
    }
    return s;
}

}  // namespace gridcoll::detail
