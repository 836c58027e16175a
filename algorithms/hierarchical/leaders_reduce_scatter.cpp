// Site leaders for reduce-scatter (reduce_scatter and reduce_scatter_block): every site sums its
// ranks' vectors at its leader over the LAN, and each leader sends every other leader only the
// part of its site's partial sums that site's ranks receive, in one WAN message — so every
// byte of the result crosses each site pair once, the least a reduce-scatter can send over the
// WAN (MagPIe's two-layer idea, [MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe:
// MPI's Collective Communication Operations for Clustered Wide Area Systems", PPoPP 1999;
// leaders as in leaders.cpp). Each leader adds the other sites' parts to its own and sends its
// ranks their blocks.
//
//   site s:  binomial reduce of the whole vector (n bytes) to leader(s)
//   WAN:     leader(s) --(site t's blocks of it)--> leader(t), every pair at once
//   site t:  leader(t) adds the C - 1 parts, sends each rank its block
//
// Cost on C sites of k ranks, vector n = P b: log2(k)(L_l + n/B_l + n gamma) in a site, one
// L_w + (C-1) k b / B_w on a leader's WAN links, (C-1) k b gamma, (k-1)(L_l + b/B_l) down: one
// WAN latency and the WAN bound, where reduce-then-scatter sends the whole vector over it.
// Sites combine in site order, so the operation must commute. With a segment size
// (`leaders:seg=S`) the in-site sum and the WAN parts go in segments, so the WAN starts at once
// and the in-site sum hides behind it: about the cut bound.
//
// References: [MagPIe99], [P004] (algorithms/REFERENCES.md).
#include <algorithm>
#include <numeric>
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

struct LeadersReduceScatter {
    const Request& r;
    Composer& c;
    Sites sites;
    int level = 0;
    Span whole{};  // the site's partial sums of the whole vector, at its leader

    int leader(int site) const { return site_leader(*r.topology, sites, level, site); }
    const std::vector<int>& members(int site) const { return sites.members[static_cast<std::size_t>(site)]; }
    std::uint64_t site_bytes(int site) const {
        std::uint64_t n = 0;
        for (int q : members(site)) n += block_bytes(r, q);
        return n;
    }

    // A span cut into segments of params.segment bytes (whole elements; one piece unsegmented).
    std::vector<Span> pieces(Span sp) const {
        std::vector<Span> v;
        std::uint64_t seg = r.params.segment == 0 ? sp.len : std::max(r.elem, r.params.segment / r.elem * r.elem);
        for (std::uint64_t at = 0; at < sp.len; at += seg) v.push_back(Span{sp.buf, sp.off + at, std::min(seg, sp.len - at)});
        return v;
    }

    // Site t's blocks of `whole`: a span of it when t's ranks are consecutive, else packed.
    Span part_for(int t) {
        const auto runs = runs_of(members(t));
        const auto at = [&](int first, int count) {
            const std::uint64_t off = block_offset(r, first);
            return Span{Buf::Tmp, whole.off + off, block_offset(r, first + count) - off};
        };
        if (runs.size() == 1) return at(runs[0].first, runs[0].second);
        const Span packed = c.fresh_tmp(site_bytes(t));
        std::uint64_t to = packed.off;
        for (const auto& [first, count] : runs) {
            const Span from = at(first, count);
            if (from.len > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, from, Span{Buf::Tmp, to, from.len}});
            to += from.len;
        }
        return packed;
    }

    void reduce_in_site(int site, int lead) {
        const std::vector<int>& mine = members(site);
        const std::uint64_t n = block_offset(r, r.size);
        whole = r.rank == lead ? c.fresh_tmp(n) : Span{Buf::Tmp, 0, 0};
        if (mine.size() == 1) {
            c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::In, 0, n}, whole});
            return;
        }
        int me = 0, root = 0;
        for (std::size_t i = 0; i < mine.size(); ++i) {
            if (mine[i] == r.rank) me = static_cast<int>(i);
            if (mine[i] == lead) root = static_cast<int>(i);
        }
        Request red = r;
        red.coll = Collective::Reduce;
        red.bytes = n;
        red.counts = nullptr;
        red.topology = nullptr;
        red.params = MethodParams{};
        // Segmented: the parts for the first sites are summed first and leave over the WAN while
        // the rest is still summed. (A pipelined chain, each rank taking the vector in once, was
        // 6x slower than the binomial tree under SMPI: 83 s against 13.4 s for 128 MiB on 32 ranks.)
        Method m("binomial");
        m.params.segment = r.params.segment;
        c.embed(build_for_group(red, static_cast<int>(mine.size()), me, root, m), mine, Placement{{Buf::In, 0, 0}, whole});
    }

    void build() {
        const int site = sites.site_of[static_cast<std::size_t>(r.rank)];
        const int lead = leader(site);
        reduce_in_site(site, lead);
        const Span out{Buf::Out, 0, block_bytes(r, r.rank)};
        if (r.rank != lead) {
            if (out.len > 0) c.add(Step{Op::Recv, Order::DstLeft, 0, lead, {}, out});
            return;
        }
        const std::uint64_t mine = site_bytes(site);
        for (int t = 0; t < sites.count(); ++t)
            if (t != site && site_bytes(t) > 0)
                for (const Span& piece : pieces(part_for(t))) c.add(Step{Op::Send, Order::DstLeft, 0, leader(t), piece, {}});
        if (mine == 0) return;
        const Span acc = part_for(site);
        for (int t = 0; t < sites.count(); ++t) {
            if (t == site) continue;
            const Span got = c.fresh_tmp(mine);
            for (const Span& piece : pieces(got)) {
                c.add(Step{Op::Recv, Order::DstLeft, 0, leader(t), {}, piece});
                c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, piece, Span{acc.buf, acc.off + (piece.off - got.off), piece.len}});
            }
        }
        std::uint64_t at = acc.off;
        for (int q : members(site)) {
            const Span block{Buf::Tmp, at, block_bytes(r, q)};
            at += block.len;
            if (block.len == 0) continue;
            if (q == r.rank) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, block, out});
            else c.add(Step{Op::Send, Order::DstLeft, 0, q, block, {}});
        }
    }
};

}  // namespace

Schedule reduce_scatter_leaders(const Request& r) {
    Schedule s(r.rank, r.size);
    if (block_offset(r, r.size) == 0) return s;
    Composer c(s);
    LeadersReduceScatter a{r, c, {}, 0};
    a.sites = first_split(*r.topology, a.level);
    a.build();
    return s;
}

}  // namespace gridcoll::detail
