// Reduce, then scatter — the composition MPICH used for reduce-scatter before its pairwise and
// recursive-halving forms (Thakur, Rabenseifner, Gropp, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 19(1), 2005, §4.5): a binomial reduce of the whole
// vector to rank 0 (rank order kept), then rank 0 sends every rank its block (linear scatter).
// Serves reduce_scatter and reduce_scatter_block.
//
// Cost (Hockney, vector n = sum of the blocks): log2(P)(alpha + n beta + n gamma) for the
// reduce, then (P-1) alpha + (n - b_0) beta from rank 0: few rounds, many bytes.
#include <numeric>

#include "../core/builders.hpp"
#include "../hierarchical/compose.hpp"

namespace gridcoll::detail {

Schedule reduce_scatter_reduce_scatterv(const Request& r) {
    Schedule s(r.rank, r.size);
    const std::uint64_t total = block_offset(r, r.size);
    if (total == 0) return s;
    Composer c(s);
    Request red = r;
    red.coll = Collective::Reduce;
    red.bytes = total;
    red.counts = nullptr;
    red.topology = nullptr;
    red.params = MethodParams{};
    const Span whole = r.rank == 0 ? c.fresh_tmp(total) : Span{Buf::Tmp, 0, 0};
    std::vector<int> everyone(static_cast<std::size_t>(r.size));
    std::iota(everyone.begin(), everyone.end(), 0);
    c.embed(build_for_group(red, r.size, r.rank, 0, Method("binomial")), everyone, Placement{{Buf::In, 0, 0}, whole});
    const std::uint64_t b = block_bytes(r, r.rank);
    if (r.rank != 0) {
        if (b > 0) c.add(Step{Op::Recv, Order::DstLeft, 0, 0, {}, Span{Buf::Out, 0, b}});
        return s;
    }
    for (int j = 1; j < r.size; ++j)
        if (block_bytes(r, j) > 0)
            c.add(Step{Op::Send, Order::DstLeft, 0, j, Span{Buf::Tmp, whole.off + block_offset(r, j), block_bytes(r, j)}, {}});
    if (b > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::Tmp, whole.off, b}, Span{Buf::Out, 0, b}});
    return s;
}

}  // namespace gridcoll::detail
