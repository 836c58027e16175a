// Pairwise-exchange reduce-scatter — MPICH's MPI_Reduce_scatter for long messages and for
// non-commutative operations (Thakur, Rabenseifner, Gropp, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 19(1), 2005, §4.5). In step i = 1 .. P-1 rank r
// sends its contribution to rank (r+i) mod P's block and receives rank (r-i) mod P's
// contribution to its own; every contribution lands in its own scratch slot, and the block is
// combined in rank order once all are in, so non-commutative operations are fine. Serves
// reduce_scatter (block j = counts.block(j)) and reduce_scatter_block (every block m).
//
//   P = 4, rank 0:  step 1: In[b1] -> 1, 3's In[b0] <- 3   step 2: -> 2, <- 2   step 3: -> 3, <- 1
//                   Out = c0 op c1 op c2 op c3
//
// Cost (Hockney, block b of rank r): (P-1)(alpha + b beta) + (P-1) b gamma at a rank whose
// in-block and out-blocks are alike; bandwidth-optimal, latency P-1 rounds.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule reduce_scatter_pairwise(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const std::uint64_t b = block_bytes(r, me);
    const auto in_block = [&](int j) { return Span{Buf::In, block_offset(r, j), block_bytes(r, j)}; };
    const auto slot = [&](int j) {  // rank j's contribution to my block, j != me
        const int k = j < me ? j : j - 1;
        return Span{Buf::Tmp, static_cast<std::uint64_t>(k) * b, b};
    };
    std::vector<StepId> got(static_cast<std::size_t>(P), kNoStep);
    StepId sent = kNoStep, last = kNoStep;
    for (int i = 1; i < P; ++i) {
        const int to = (me + i) % P, from = (me - i + P) % P;
        const StepId snd = block_bytes(r, to) > 0 ? s.send(to, in_block(to), {sent, last}) : kNoStep;
        if (b > 0) last = got[static_cast<std::size_t>(from)] = s.recv(from, slot(from), {sent, last});
        if (snd != kNoStep) sent = snd;
    }
    if (b == 0) return s;
    s.need_tmp(static_cast<std::uint64_t>(P - 1) * b);
    const Span out{Buf::Out, 0, b};
    // Out = c_0 op c_1 op ... op c_{P-1}, c_me my own In block.
    StepId acc = s.copy(me == 0 ? in_block(0) : slot(0), out, {got[0]});
    for (int j = 1; j < P; ++j)
        acc = s.reduce(j == me ? in_block(j) : slot(j), out, Order::DstLeft, {acc, got[static_cast<std::size_t>(j)]});
    return s;
}

}  // namespace gridcoll::detail
