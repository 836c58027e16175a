// Ring reduce-scatter — the first half of the bandwidth-optimal ring allreduce (Patarasuk, Yuan,
// "Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC 69(2), 2009).
// In step k = 0 .. P-2 rank r sends the partial sum of block (r-k-1) mod P to r+1 and receives
// the partial sum of block (r-k-2) mod P from r-1, adding its own contribution; after P-1
// steps it holds its own block (r) reduced over all ranks. Partial sums start at different
// ranks, so the operation must commute. Serves reduce_scatter and reduce_scatter_block.
//
//   P = 4:   0 -> 1 -> 2 -> 3 -> 0      block j's partial sum starts at j+1, ends at j
//
// Cost (Hockney, equal blocks b): (P-1)(alpha + b beta + b gamma): every rank sends and receives
// (P-1) b bytes, the least any reduce-scatter can.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule reduce_scatter_ring(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const auto in_block = [&](int j) { return Span{Buf::In, block_offset(r, j), block_bytes(r, j)}; };
    const Span out{Buf::Out, 0, block_bytes(r, me)};
    if (P == 1) {
        if (out.len > 0) s.copy(in_block(0), out);
        return s;
    }
    const int next = (me + 1) % P, prev = (me - 1 + P) % P;
    std::uint64_t tmp = 0;
    Span acc = in_block((me - 1 + P) % P);  // what I send in step 0: my own contribution
    StepId ready = kNoStep, sent = kNoStep;
    for (int k = 0; k + 1 < P; ++k) {
        if (acc.len > 0) sent = s.send(next, acc, {ready, sent});
        const int j = (me - k - 2 + 2 * P) % P;  // the block whose partial sum arrives
        const std::uint64_t b = block_bytes(r, j);
        const Span into = j == me ? out : Span{Buf::Tmp, tmp, b};
        if (j != me) tmp += b;
        if (b == 0) {
            acc = into;
            ready = kNoStep;
            continue;
        }
        const StepId got = s.recv(prev, into);
        ready = s.reduce(in_block(j), into, Order::SrcLeft, {got});
        acc = into;
    }
    s.need_tmp(tmp);
    return s;
}

}  // namespace gridcoll::detail
