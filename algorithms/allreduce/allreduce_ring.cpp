// Ring allreduce — Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
// workstations", JPDC 2009 (the reduce-scatter + allgather scheme of Rabenseifner). The vector
// is cut into P chunks of whole elements (chunk c: the c-th share of the m/elem elements, the
// first (m/elem) mod P chunks one element longer; empty chunks are skipped).
//   reduce-scatter, step s = 0..P-2: send chunk r-s to r+1, receive chunk r-s-1 from r-1 and
//                                    combine it with my input; rank r ends owning chunk r+1;
//   allgather,      step s = 0..P-2: send chunk r+1-s to r+1, receive chunk r-s from r-1.
//
//   P = 4, reduce-scatter step 0:   0 --c0--> 1 --c1--> 2 --c2--> 3 --c3--> 0
//          step 1:                  0 --c3--> 1 --c0--> 2 --c1--> 3 --c2--> 0   (partial sums)
//
// Cost (Hockney): 2(P-1) alpha + 2 (P-1)/P m beta + (P-1)/P m gamma (bandwidth optimal).
//
// Order: chunk c is combined along c, c+1, ..., P-1, 0, ..., c-1, which wraps around for every
// chunk but chunk 0: the algorithm needs a commutative operation.
#include "../core/builders.hpp"
#include "../core/engines.hpp"

#include <vector>

namespace gridcoll::detail {

Schedule allreduce_ring(const Request& r) {
    if (!r.commutative) throw_needs_commutative(r, "ring");
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    if (r.bytes == 0) return s;
    if (P == 1) {
        s.copy(Span{Buf::In, 0, r.bytes}, Span{Buf::Out, 0, r.bytes});
        return s;
    }
    // Chunk c = [off[c], off[c + 1]) in bytes, whole elements.
    const std::uint64_t n = r.bytes / r.elem;
    std::vector<std::uint64_t> off(static_cast<std::size_t>(P) + 1, 0);
    for (int c = 0; c < P; ++c)
        off[c + 1] = off[c] + (n / P + (static_cast<std::uint64_t>(c) < n % P ? 1 : 0)) * r.elem;
    auto chunk = [&](Buf b, int c) { return Span{b, off[c], off[c + 1] - off[c]}; };
    auto empty = [&](int c) { return off[c + 1] == off[c]; };
    auto mod = [P](int x) { return ((x % P) + P) % P; };
    const int next = mod(me + 1), prev = mod(me - 1);
    // Each access to Out chunk c depends on the previous one (recv, reduce, send, recv, send).
    std::vector<StepId> last(static_cast<std::size_t>(P), kNoStep);

    for (int st = 0; st < P - 1; ++st) {  // reduce-scatter
        const int snd = mod(me - st), rcv = mod(me - st - 1);
        if (!empty(snd) && st == 0) s.send(next, chunk(Buf::In, snd));  // my own input, as is
        if (!empty(snd) && st > 0) last[snd] = s.send(next, chunk(Buf::Out, snd), {last[snd]});
        if (!empty(rcv)) {
            const StepId got = s.recv(prev, chunk(Buf::Out, rcv), {last[rcv]});
            last[rcv] = s.reduce(chunk(Buf::In, rcv), chunk(Buf::Out, rcv), Order::DstLeft, {got});
        }
    }
    for (int st = 0; st < P - 1; ++st) {  // allgather
        const int snd = mod(me + 1 - st), rcv = mod(me - st);
        if (!empty(snd)) last[snd] = s.send(next, chunk(Buf::Out, snd), {last[snd]});
        if (!empty(rcv)) last[rcv] = s.recv(prev, chunk(Buf::Out, rcv), {last[rcv]});
    }
    return s;
}

}  // namespace gridcoll::detail
