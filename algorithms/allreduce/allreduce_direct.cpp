// Direct (one-round) allreduce — MagPIe's allreduce among cluster coordinators on a full mesh
// ([MagPIe99]: Kielmann et al., "MagPIe: MPI's Collective Communication Operations for Clustered
// Wide Area Systems", PPoPP 1999): every rank sends its whole vector to every other rank, then
// combines all P vectors itself, in rank order (so a non-commutative operation is honoured and
// every rank computes the same bytes). One message latency for small vectors, where recursive
// doubling pays log2 P; the site leaders of `leaders` use it (algorithms/hierarchical/leaders.cpp).
//
//   rank r: send x_r to every other rank; receive x_q from each;
//           out = x_0 op x_1 op ... op x_{P-1}
//
// Cost: Hockney alpha + (P - 1) m beta + (P - 1) m gamma; (P - 1) m bytes of scratch.
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

#include <vector>

namespace gridcoll::detail {

Schedule allreduce_direct(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t m = r.bytes;
    const Span in{Buf::In, 0, m}, out{Buf::Out, 0, m};
    if (r.size == 1 || m == 0) {
        if (m > 0) s.copy(in, out);
        return s;
    }
    for (int k = 1; k < r.size; ++k) s.send((r.rank + k) % r.size, in);
    // x_q of peer q lands in scratch slot q (below me) or q - 1 (above me).
    const auto slot = [&](int q) { return Span{Buf::Tmp, static_cast<std::uint64_t>(q < r.rank ? q : q - 1) * m, m}; };
    s.need_tmp(static_cast<std::uint64_t>(r.size - 1) * m);
    std::vector<StepId> got(static_cast<std::size_t>(r.size), kNoStep);
    for (int k = 1; k < r.size; ++k) {
        const int q = (r.rank - k + r.size) % r.size;
        got[static_cast<std::size_t>(q)] = s.recv(q, slot(q));
    }
    StepId acc = r.rank == 0 ? s.copy(in, out) : s.copy(slot(0), out, {got[0]});
    for (int q = 1; q < r.size; ++q)
        acc = s.reduce(q == r.rank ? in : slot(q), out, Order::DstLeft, {acc, got[static_cast<std::size_t>(q)]});
    return s;
}

}  // namespace gridcoll::detail
