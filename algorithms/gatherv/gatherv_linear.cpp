// Linear gatherv — MPICH's and Open MPI's MPI_Gatherv (a non-root rank knows only its own
// count, so the flat tree is the method every MPI library uses; Träff, "Hierarchical gather/
// scatter algorithms with graceful degradation", IPDPS 2004, discusses why trees need every
// count): every rank sends its block to the root, which receives block j into its place in Out
// and copies its own. Zero-byte blocks are not sent. Needs at a rank only its own count (the
// root: all).
//
// Cost (Hockney): (P-1) alpha + (n - b_root) beta at the root, n the sum of the blocks.
#include "../core/builders.hpp"

namespace gridcoll::detail {

Schedule gatherv_linear(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t mine = block_bytes(r, r.rank);
    if (r.rank != r.root) {
        if (mine > 0) s.send(r.root, Span{Buf::In, 0, mine});
        return s;
    }
    for (int i = 1; i < r.size; ++i) {
        const int j = (r.root + i) % r.size;
        if (block_bytes(r, j) > 0) s.recv(j, Span{Buf::Out, block_offset(r, j), block_bytes(r, j)});
    }
    if (mine > 0) s.copy(Span{Buf::In, 0, mine}, Span{Buf::Out, block_offset(r, r.rank), mine});
    return s;
}

}  // namespace gridcoll::detail
