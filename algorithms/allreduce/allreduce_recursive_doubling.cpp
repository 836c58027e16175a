// Recursive-doubling allreduce — MPICH's MPIR_Allreduce_intra_recursive_doubling (Thakur,
// Rabenseifner, Gropp, "Optimization of collective communication operations in MPICH", 2005).
// In round k every rank exchanges its whole vector with rank XOR 2^k and combines. For P not a
// power of two, with p2 = floor_pow2(P) and rem = P - p2, the first 2*rem ranks fold in pairs:
// even rank 2i sends its input to 2i+1 and sits out; the p2 remaining ranks run recursive
// doubling as new ranks 0..p2-1; at the end 2i+1 sends the result back to 2i.
//
//   P = 6 (p2 = 4, rem = 2):   fold       0 -> 1   2 -> 3
//                              k = 0      1 <-> 3   4 <-> 5      (new ranks 0 <-> 1, 2 <-> 3)
//                              k = 1      1 <-> 4   3 <-> 5      (new ranks 0 <-> 2, 1 <-> 3)
//                              unfold     1 -> 0   3 -> 2
//
// Cost (Hockney): P a power of two: log2 P (alpha + m beta + m gamma);
//                 otherwise (log2 p2 + 2)(alpha + m beta) + (log2 p2 + 1) m gamma;
//                 plus one local copy of m (a rank's vector into the output before its first
//                 exchange, so that every receive is posted together with its send).
//
// Order: folding neighbours 2i, 2i+1 (MPICH's non-commutative scheme) makes every new rank hold
// a contiguous block of ranks, in increasing order of new rank, so a block from a lower new
// rank goes on the left: rank order is kept for every P.
#include "../core/builders.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

namespace {

// A rank's running result: still its input (nothing received yet) or in Out.
struct Acc {
    bool in_out = false;
    StepId last = kNoStep;  // last step writing Out
    StepId tmp = kNoStep;   // last step reading Tmp
};

// Sends my current vector to `peer` (unless `send` is false), receives peer's and combines it
// with mine, peer's on the left when `peer_lower`.
void exchange(Schedule& s, Acc& a, std::uint64_t m, int peer, bool send, bool peer_lower) {
    const Span in{Buf::In, 0, m}, out{Buf::Out, 0, m}, tmp{Buf::Tmp, 0, m};
    if (send && !a.in_out) {
        // My vector into Out first: the receive below then waits for it, as the send does, so
        // that inside a hierarchical method it is not posted before my part has arrived.
        a.last = s.copy(in, out);
        a.in_out = true;
    }
    const StepId snd = send ? s.send(peer, out, {a.last}) : kNoStep;
    if (!a.in_out) {
        // First data: receive straight into Out and fold my input in on the proper side.
        const StepId got = s.recv(peer, out);
        a.last = s.reduce(in, out, peer_lower ? Order::DstLeft : Order::SrcLeft, {got});
        a.in_out = true;
        return;
    }
    s.need_tmp(m);
    // Posted with the send, not before it: a receive posted early lets a late peer answer an
    // early one's rendezvous at once; the early one's bulk data then goes out first, and its own
    // answer to the late peer waits behind it on the same connection (Open MPI over TCP: the two
    // ways of the exchange run one after the other; emulator/README.md, "Time dilation").
    const StepId got = s.recv(peer, tmp, {a.tmp, a.last});
    a.last = s.reduce(tmp, out, peer_lower ? Order::SrcLeft : Order::DstLeft, {got, snd, a.last});
    a.tmp = a.last;
}

}  // namespace

Schedule allreduce_recursive_doubling(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const int P = r.size, me = r.rank;
    const int p2 = floor_pow2(P), rem = P - p2;
    const Span in{Buf::In, 0, m}, out{Buf::Out, 0, m};
    Acc a;
    if (me < 2 * rem && me % 2 == 0) {  // folded away: give my input, get the result
        s.send(me + 1, in);
        s.recv(me + 1, out);
        return s;
    }
    if (me < 2 * rem) exchange(s, a, m, me - 1, /*send=*/false, /*peer_lower=*/true);
    const int nr = me < 2 * rem ? me / 2 : me - rem;  // new rank
    for (int mask = 1; mask < p2; mask <<= 1) {
        const int np = nr ^ mask;
        const int peer = np < rem ? 2 * np + 1 : np + rem;
        exchange(s, a, m, peer, /*send=*/true, /*peer_lower=*/np < nr);
    }
    if (!a.in_out) a.last = s.copy(in, out);  // P = 1
    if (me < 2 * rem) s.send(me - 1, out, {a.last});
    return s;
}

}  // namespace gridcoll::detail
