// Ring allgatherv — MPICH's MPI_Allgatherv for long messages (Thakur, Rabenseifner, Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA 19(1), 2005, §4.1):
// in step k = 0 .. P-2 rank r sends block (r-k) mod P to r+1 and receives block (r-k-1) mod P
// from r-1, each straight into its place in Out. Zero-byte blocks are not sent. Serves
// allgather's regular blocks too.
//
//   P = 4:   0 -> 1 -> 2 -> 3 -> 0       every block travels P-1 hops
//
// Cost (Hockney): sum over the P-1 steps of (alpha + b_step beta), b_step the largest block
// moved in that step; with equal blocks (P-1)(alpha + m beta).
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allgatherv_ring(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const auto block = [&](int j) { return Span{Buf::Out, block_offset(r, j), block_bytes(r, j)}; };
    std::vector<StepId> have(static_cast<std::size_t>(P), kNoStep);
    if (block_bytes(r, me) > 0) have[static_cast<std::size_t>(me)] = s.copy(Span{Buf::In, 0, block_bytes(r, me)}, block(me));
    const int next = (me + 1) % P, prev = (me - 1 + P) % P;
    for (int k = 0; k + 1 < P; ++k) {
        const int out = (me - k + P) % P, in = (me - k - 1 + 2 * P) % P;
        if (block_bytes(r, out) > 0) s.send(next, block(out), {have[static_cast<std::size_t>(out)]});
        if (block_bytes(r, in) > 0) have[static_cast<std::size_t>(in)] = s.recv(prev, block(in));
    }
    return s;
}

}  // namespace gridcoll::detail
