// Direct allgatherv — one round: every rank sends its block straight to every other rank
// (MagPIe's choice among few ranks on slow links: Kielmann, Hofman, Bal, Plaat, Bhoedjang,
// "MagPIe: MPI's Collective Communication Operations for Clustered Wide Area Systems",
// PPoPP 1999). Zero-byte blocks are not sent.
//
// Cost (Hockney): alpha + (P-1) b beta at a rank's link (P-1 messages at once): one latency.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule allgatherv_direct(const Request& r) {
    Schedule s(r.rank, r.size);
    const int P = r.size, me = r.rank;
    const std::uint64_t mine = block_bytes(r, me);
    for (int i = 1; i < P && mine > 0; ++i) s.send((me + i) % P, Span{Buf::In, 0, mine});
    for (int i = 1; i < P; ++i) {
        const int from = (me - i + P) % P;
        if (block_bytes(r, from) > 0) s.recv(from, Span{Buf::Out, block_offset(r, from), block_bytes(r, from)});
    }
    if (mine > 0) s.copy(Span{Buf::In, 0, mine}, Span{Buf::Out, block_offset(r, me), mine});
    return s;
}

}  // namespace gridcoll::detail
