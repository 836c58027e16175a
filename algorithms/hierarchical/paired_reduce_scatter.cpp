// Reduce-scatter with every rank a leader (`paired`): the bandwidth-optimal WAN form, spread over
// all of a site's links rather than one leader's. The sites (the Topology's first real split)
// must have equal sizes n; the j-th rank of every site forms "column" j. Each site first
// reduce-scatters its ranks' vectors by columns (a ring in the site: rank j ends with the site's
// partial sums of the blocks of column j), then rank j sends the j-th rank of every other site
// its block's partial sum straight over the WAN and adds the ones it receives to its own — after
// MagPIe's direct exchanges between sites ([MagPIe99]: Kielmann, Hofman, Bal, Plaat,
// Bhoedjang, "MagPIe: MPI's Collective Communication Operations for Clustered Wide Area
// Systems", PPoPP 1999), the in-site step the ring reduce-scatter of Patarasuk and Yuan
// ("Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC 69(2), 2009).
//
//   site s:  ring reduce-scatter by columns        rank j: site sums of column j's C blocks
//   WAN:     rank j of s --its block's sum--> rank j of t, every t != s, all ranks at once
//   rank:    own block = own site's sum + the C - 1 received
//
// Cost on C sites of n ranks, blocks of m bytes: (n-1)(L_l + C m / B_l + C m gamma) in the site,
// then L_w + n m / B_w on each WAN link (every byte of the result crosses each site pair once:
// the cut bound) and (C-1) m gamma. Uneven sites get the leaders form (leaders_reduce_scatter.cpp).
// The sums run in site and ring order: the operation must commute.
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

struct Paired {
    const Request& r;
    Composer& c;
    const Sites& sites;
    int n = 0, site = 0, j = 0;

    int member(int t, int k) const { return sites.members[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)]; }
    std::uint64_t column_bytes(int k) const {
        std::uint64_t b = 0;
        for (int t = 0; t < sites.count(); ++t) b += block_bytes(r, member(t, k));
        return b;
    }

    // My vector in column order (column k: the blocks of member(t, k), t = 0..C-1), in Tmp.
    Span pack_columns(std::vector<std::uint64_t>& columns) {
        std::uint64_t total = 0;
        for (int k = 0; k < n; ++k) {
            columns.push_back(column_bytes(k));
            total += columns.back();
        }
        const Span packed = c.fresh_tmp(total);
        std::uint64_t at = packed.off;
        for (int k = 0; k < n; ++k)
            for (int t = 0; t < sites.count(); ++t) {
                const int q = member(t, k);
                const Span from{Buf::In, block_offset(r, q), block_bytes(r, q)};
                if (from.len > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, from, Span{Buf::Tmp, at, from.len}});
                at += from.len;
            }
        return packed;
    }

    // The site's sums of my column, by a ring reduce-scatter among the site's ranks.
    Span site_sums() {
        std::vector<std::uint64_t> columns;
        const Span packed = pack_columns(columns);
        if (n == 1) return packed;
        const Span mine = c.fresh_tmp(columns[static_cast<std::size_t>(j)]);
        Request rs = r;
        rs.coll = Collective::ReduceScatter;
        rs.counts = std::make_shared<const Counts>(columns);
        rs.topology = nullptr;
        rs.params = MethodParams{};
        c.embed(build_for_group(rs, n, j, 0, Method("ring")), sites.members[static_cast<std::size_t>(site)],
                Placement{packed, mine});
        return mine;
    }

    void build() {
        const Span sums = site_sums();  // blocks of member(t, j), t = 0..C-1, in site order
        const std::uint64_t b = block_bytes(r, r.rank);
        std::uint64_t at = sums.off, own = 0;
        for (int t = 0; t < sites.count(); ++t) {
            const int q = member(t, j);
            const std::uint64_t len = block_bytes(r, q);
            if (t == site) own = at;
            else if (len > 0) c.add(Step{Op::Send, Order::DstLeft, 0, q, Span{Buf::Tmp, at, len}, {}});
            at += len;
        }
        if (b == 0) return;
        const Span acc{Buf::Tmp, own, b};
        for (int t = 0; t < sites.count(); ++t) {
            if (t == site) continue;
            const Span got = c.fresh_tmp(b);
            c.add(Step{Op::Recv, Order::DstLeft, 0, member(t, j), {}, got});
            c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, got, acc});
        }
        c.add(Step{Op::Copy, Order::DstLeft, 0, -1, acc, Span{Buf::Out, 0, b}});
    }
};

}  // namespace

Schedule reduce_scatter_paired(const Request& r) {
    int level = 0;
    const Sites sites = first_split(*r.topology, level);
    if (!sites_equal_sized(sites)) return reduce_scatter_leaders(r);
    Schedule s(r.rank, r.size);
    if (block_offset(r, r.size) == 0) return s;
    Composer c(s);
    Paired p{r, c, sites};
    p.n = static_cast<int>(sites.members.front().size());
    p.site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(p.site)];
    p.j = static_cast<int>(std::find(mine.begin(), mine.end(), r.rank) - mine.begin());
    p.build();
    return s;
}

}  // namespace gridcoll::detail
