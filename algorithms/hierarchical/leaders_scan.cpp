// Site leaders that talk directly: the latency-optimal small-message scan (inclusive prefix),
// after MagPIe's direct exchange between sites ([MagPIe99]: Kielmann, Hofman, Bal, Plaat,
// Bhoedjang, "MagPIe: MPI's Collective Communication Operations for Clustered Wide Area
// Systems", PPoPP 1999; the sites are the Topology's first real split, as in leaders.cpp).
// Every site scans its own ranks (recursive doubling); the last rank of each site, which then
// holds its site's total, sends it straight to the first rank of every later site; that rank
// combines the earlier sites' totals in site order and broadcasts the result through its site
// (binomial), and each rank puts it in front of its own site prefix.
//
//   site s:  local scan (recursive doubling)            -> local prefix at every rank
//   WAN:     last(s) --total(s)--> first(t) for every site t > s  (one message per pair)
//   site t:  first(t): offset = total(0) op ... op total(t-1); binomial to the site;
//            out = offset op local prefix
//
// Operands keep rank order (non-commutative operations are fine): sites are whole runs of
// consecutive ranks. A Topology whose sites interleave ranks gets a flat recursive-doubling scan.
//
// Cost on C sites of n ranks, m bytes: log2(n) (L_l + m/B_l) for the local scan, one
// L_w + m/B_w (a last rank sends C - 1 messages, a first rank receives up to C - 1), then
// log2(n) (L_l + m/B_l): one WAN latency, where a chain over the sites pays C - 1.
//
// exscan runs the same way with an exclusive local scan: the last rank of a site adds its own
// input to its exclusive prefix to get the site's total, the first rank of a site takes the
// earlier sites' total as its result, and rank 0 gets nothing (MPI leaves it undefined).
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

bool runs_in_order(const Sites& sites) {
    int next = 0;
    for (const std::vector<int>& m : sites.members)
        for (int r : m)
            if (r != next++) return false;
    return true;
}

// This rank's position among its site's members.
int position(const std::vector<int>& members, int rank) {
    return static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
}

// The earlier sites' totals combined in site order at the first rank of site `site` (> 0), then
// broadcast through the site; returns where the sum lies.
Span earlier_sites(Composer& c, const Request& flat, const Sites& sites, int site) {
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(site)];
    const int n = static_cast<int>(mine.size()), me = position(mine, flat.rank);
    const std::uint64_t b = flat.bytes;
    const Span offset = c.fresh_tmp(b * static_cast<std::uint64_t>(flat.rank == mine.front() ? site : 1));
    Span sum{Buf::Tmp, offset.off, b};
    if (flat.rank == mine.front()) {
        for (int t = 0; t < site; ++t)
            c.add(Step{Op::Recv, Order::DstLeft, 0, sites.members[static_cast<std::size_t>(t)].back(), {},
                       Span{Buf::Tmp, offset.off + static_cast<std::uint64_t>(t) * b, b}});
        for (int t = 1; t < site; ++t) {  // total(0..t) = total(0..t-1) op total(t), in site order
            const Span next{Buf::Tmp, offset.off + static_cast<std::uint64_t>(t) * b, b};
            c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, sum, next});
            sum = next;
        }
    }
    if (n > 1) {
        Request bc = flat;
        bc.coll = Collective::Bcast;
        c.embed(build_for_group(bc, n, me, 0, Method("binomial")), mine, Placement{sum, sum});
    }
    return sum;
}

}  // namespace

Schedule scan_leaders(const Request& r) {
    int level = 0;
    const Sites sites = first_split(*r.topology, level);
    Request flat = r;
    flat.topology = nullptr;
    if (!runs_in_order(sites) || r.bytes == 0) return build_for_group(flat, r.size, r.rank, 0, Method("recursive-doubling"));
    Schedule s(r.rank, r.size);
    Composer c(s);
    const int site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(site)];
    const int n = static_cast<int>(mine.size()), me = position(mine, r.rank);
    const std::uint64_t b = r.bytes;
    const Span local = c.fresh_tmp(b);
    c.embed(build_for_group(flat, n, me, 0, Method("recursive-doubling")), mine, Placement{{Buf::In, 0, 0}, local});
    if (r.rank == mine.back())  // my site's total, to the first rank of every later site
        for (int t = site + 1; t < sites.count(); ++t)
            c.add(Step{Op::Send, Order::DstLeft, 0, sites.members[static_cast<std::size_t>(t)].front(), local, {}});
    c.add(Step{Op::Copy, Order::DstLeft, 0, -1, local, Span{Buf::Out, 0, b}});
    if (site == 0) return s;
    const Span sum = earlier_sites(c, flat, sites, site);
    c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, sum, Span{Buf::Out, 0, b}});
    return s;
}

Schedule exscan_leaders(const Request& r) {
    int level = 0;
    const Sites sites = first_split(*r.topology, level);
    Request flat = r;
    flat.topology = nullptr;
    if (!runs_in_order(sites) || r.bytes == 0) return build_for_group(flat, r.size, r.rank, 0, Method("recursive-doubling"));
    Schedule s(r.rank, r.size);
    Composer c(s);
    const int site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(site)];
    const int n = static_cast<int>(mine.size()), me = position(mine, r.rank);
    const std::uint64_t b = r.bytes;
    const Span in{Buf::In, 0, b}, out{Buf::Out, 0, b};
    const Span local = c.fresh_tmp(b);  // my exclusive prefix within the site (none at its first rank)
    if (n > 1) c.embed(build_for_group(flat, n, me, 0, Method("recursive-doubling")), mine, Placement{in, local});
    if (r.rank == mine.back() && site + 1 < sites.count()) {  // my site's total, to every later site
        Span total = in;
        if (n > 1) {
            total = c.fresh_tmp(b);
            c.add(Step{Op::Copy, Order::DstLeft, 0, -1, in, total});
            c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, local, total});
        }
        for (int t = site + 1; t < sites.count(); ++t)
            c.add(Step{Op::Send, Order::DstLeft, 0, sites.members[static_cast<std::size_t>(t)].front(), total, {}});
    }
    if (site == 0) {
        if (me > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, local, out});
        return s;
    }
    const Span sum = earlier_sites(c, flat, sites, site);
    c.add(Step{Op::Copy, Order::DstLeft, 0, -1, sum, out});
    if (me > 0) c.add(Step{Op::Reduce, Order::DstLeft, 0, -1, local, out});
    return s;
}

}  // namespace gridcoll::detail
