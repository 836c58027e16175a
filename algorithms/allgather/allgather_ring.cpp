// Ring allgather — MPICH's MPI_Allgather for long messages (Thakur, Rabenseifner, Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005).
// Each rank first copies its own block into Out. In step i = 0 .. P-2 it sends to r+1 the block
// it received in step i-1 (its own in step 0) and receives from r-1 the next block, straight
// into Out at that block's place.
//
//    0 --> 1 --> 2 --> 3        step 0: rank r sends block r
//    ^                 |        step 1: rank r sends block r-1
//    +-----------------+        ...     P-1 steps, every link busy in every step
//
// Cost: Hockney (P-1) alpha + (P-1) m beta.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allgather_ring(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    auto block = [&](int i) { return Span{Buf::Out, static_cast<std::uint64_t>((i % P + P) % P) * m, m}; };
    const int right = (me + 1) % P, left = (me - 1 + P) % P;
    StepId prev = s.copy(Span{Buf::In, 0, m}, block(me));
    for (int i = 0; i < P - 1; ++i) {
        s.send(right, block(me - i), {prev});
        prev = s.recv(left, block(me - i - 1));
    }
    return s;
}

}  // namespace gridcoll::detail
