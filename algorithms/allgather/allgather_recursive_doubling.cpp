// Recursive-doubling allgather — MPICH's MPI_Allgather for short messages and power-of-two P
// (Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication Operations in MPICH",
// IJHPCA 2005). In round k each rank swaps everything it has with rank XOR 2^k, doubling its data.
// For P not a power of two (p2 = largest power of two <= P) the ranks p2 .. P-1 first fold their
// block onto rank r - p2, the p2 lower ranks run recursive doubling carrying those extra blocks
// along, and finally each rank r < P - p2 sends the whole result to rank r + p2.
//
//   round 0:  0<->1  2<->3  4<->5  6<->7     1 block each way
//   round 1:  0<->2  1<->3  4<->6  5<->7     2 blocks
//   round 2:  0<->4  1<->5  2<->6  3<->7     4 blocks
//
// Cost: Hockney, P a power of two: log2 P alpha + (P-1) m beta;
//       otherwise (floor(log2 P) + 2) alpha + about (2P - 1) m beta (fold, doubling, send back).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"
#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

Schedule allgather_recursive_doubling(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const std::uint64_t m = r.bytes;
    if (m == 0) return s;
    const int p2 = floor_pow2(P), extra = P - p2;
    auto blocks = [&](int first, int n) {
        return Span{Buf::Out, static_cast<std::uint64_t>(first) * m, static_cast<std::uint64_t>(n) * m};
    };
    if (me >= p2) {  // an extra rank: fold, then get the whole result
        s.send(me - p2, Span{Buf::In, 0, m});
        s.recv(me - p2, blocks(0, P));
        return s;
    }
    std::vector<StepId> have{s.copy(Span{Buf::In, 0, m}, blocks(me, 1))};
    if (me < extra) have.push_back(s.recv(me + p2, blocks(me + p2, 1)));
    // The blocks of the group [first, first + n) of lower ranks: theirs, then their extras'.
    auto group = [&](int first, int n) {
        std::vector<Span> spans{blocks(first, n)};
        const int ne = std::min(first + n, extra) - first;
        if (ne > 0) spans.push_back(blocks(first + p2, ne));
        return spans;
    };
    for (int mask = 1; mask < p2; mask <<= 1) {
        const int partner = me ^ mask;
        // The round's receives are posted with its sends, not at the start: a receive posted
        // early lets a late partner answer an early one's rendezvous at once, and that answer's
        // own data then queues behind the early one's on the same connection (Open MPI over TCP;
        // allreduce_recursive_doubling.cpp).
        const std::vector<StepId> ready = have;
        for (Span sp : group(me & ~(mask - 1), mask)) {
            Step send;
            send.op = Op::Send;
            send.peer = partner;
            send.src = sp;
            s.add(send, ready);
        }
        for (Span sp : group(partner & ~(mask - 1), mask)) {
            Step recv;
            recv.op = Op::Recv;
            recv.peer = partner;
            recv.dst = sp;
            have.push_back(s.add(recv, ready));
        }
    }
    if (me < extra) {
        Step send;
        send.op = Op::Send;
        send.peer = me + p2;
        send.src = blocks(0, P);
        s.add(send, have);
    }
    return s;
}

}  // namespace gridcoll::detail
