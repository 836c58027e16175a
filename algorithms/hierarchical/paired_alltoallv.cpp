// All-to-all (alltoall and alltoallv) with every rank a leader (`paired`): blocks cross the WAN
// once per site pair, aggregated, without a funnel through one rank (ECO's all-to-all gathers
// everything at rank 0). The sites (the Topology's first real split) must have equal sizes n;
// the j-th rank of every site forms column j. A rank first hands each rank k of its own site
// the blocks it has for column k of the other sites (and rank k its own block); rank j then
// sends the j-th rank of every other site, in one message, what its site has for it — after
// MagPIe's direct site-to-site exchanges ([MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang,
// "MagPIe: MPI's Collective Communication Operations for Clustered Wide Area Systems",
// PPoPP 1999) and the two-phase, node-aggregated all-to-all of Träff and Rougier ("MPI
// Collectives and Datatypes for Hierarchical All-to-all Communication", EuroMPI/ASIA 2014).
//
//   site s:  rank i --(its blocks for column k, one message per site)--> rank k of s
//   WAN:     rank j of s --(site s's blocks for rank j of t)--> rank j of t, every t != s
//
// Cost on C sites of n ranks, blocks of m bytes: the site exchange (n-1) C messages, n C m
// bytes, at a rank; then one WAN message per other site, n m bytes: L_l + L_w where the
// linear form pays (C-1) n messages over the WAN per rank; every link carries n^2 m bytes, the
// bound. Reads every rank's counts (the PMPI library gathers them). Uneven sites: linear.
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

struct PairedAlltoall {
    const Request& r;
    Composer& c;
    const Sites& sites;
    int n = 0, site = 0, j = 0;

    int member(int t, int k) const { return sites.members[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)]; }
    // What rank `from` sends rank `to`, where it lies at each end.
    std::uint64_t bytes(int from, int to) const { return r.counts ? r.counts->pair(from, to) : r.bytes; }
    Span in_block(int to) const {
        const std::uint64_t at = r.counts ? r.counts->send_offset(r.rank, to) : static_cast<std::uint64_t>(to) * r.bytes;
        return Span{Buf::In, at, bytes(r.rank, to)};
    }
    Span out_block(int from) const {
        const std::uint64_t at = r.counts ? r.counts->recv_offset(r.rank, from) : static_cast<std::uint64_t>(from) * r.bytes;
        return Span{Buf::Out, at, bytes(from, r.rank)};
    }

    void send(int peer, Span sp) {
        if (sp.len > 0) c.add(Step{Op::Send, Order::DstLeft, 0, peer, sp, {}});
    }
    void recv(int peer, Span sp) {
        if (sp.len > 0) c.add(Step{Op::Recv, Order::DstLeft, 0, peer, {}, sp});
    }
    void copy(Span from, Span to) {
        if (from.len > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, from, to});
    }

    void build() {
        const int C = sites.count();
        // Phase 1, in the site: to rank k, my blocks for column k, site by site.
        for (int d = 1; d < n; ++d) {
            const int k = (j + d) % n;
            for (int t = 0; t < C; ++t) send(member(site, k), in_block(member(t, k)));
        }
        // staged[t]: site s's blocks for rank j of site t, member by member.
        std::vector<Span> staged(static_cast<std::size_t>(C));
        for (int t = 0; t < C; ++t) {
            if (t == site) continue;
            std::uint64_t len = 0;
            for (int k = 0; k < n; ++k) len += bytes(member(site, k), member(t, j));
            staged[static_cast<std::size_t>(t)] = c.fresh_tmp(len);
        }
        const auto slot = [&](int t, int i) {  // member i's block for rank j of site t, in staged[t]
            std::uint64_t at = staged[static_cast<std::size_t>(t)].off;
            for (int k = 0; k < i; ++k) at += bytes(member(site, k), member(t, j));
            return Span{Buf::Tmp, at, bytes(member(site, i), member(t, j))};
        };
        for (int d = 1; d < n; ++d) {
            const int i = (j - d + n) % n, from = member(site, i);
            for (int t = 0; t < C; ++t) recv(from, t == site ? out_block(from) : slot(t, i));
        }
        copy(in_block(r.rank), out_block(r.rank));
        for (int t = 0; t < C; ++t)
            if (t != site) copy(in_block(member(t, j)), slot(t, j));
        // Phase 2, over the WAN: staged[t] to rank j of site t; its site's blocks for me back.
        for (int t = 0; t < C; ++t)
            if (t != site) send(member(t, j), staged[static_cast<std::size_t>(t)]);
        for (int t = 0; t < C; ++t) {
            if (t == site) continue;
            std::uint64_t len = 0;
            for (int k = 0; k < n; ++k) len += bytes(member(t, k), r.rank);
            if (len == 0) continue;
            const Span got = c.fresh_tmp(len);
            recv(member(t, j), got);
            std::uint64_t at = got.off;
            for (int k = 0; k < n; ++k) {
                const Span to = out_block(member(t, k));
                copy(Span{Buf::Tmp, at, to.len}, to);
                at += to.len;
            }
        }
    }
};

Schedule paired(const Request& r, Schedule (*fallback)(const Request&)) {
    int level = 0;
    const Sites sites = first_split(*r.topology, level);
    if (!sites_equal_sized(sites)) return fallback(r);
    Schedule s(r.rank, r.size);
    Composer c(s);
    PairedAlltoall a{r, c, sites};
    a.n = static_cast<int>(sites.members.front().size());
    a.site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(a.site)];
    a.j = static_cast<int>(std::find(mine.begin(), mine.end(), r.rank) - mine.begin());
    a.build();
    return s;
}

}  // namespace

Schedule alltoall_paired(const Request& r) { return paired(r, alltoall_linear); }
Schedule alltoallv_paired(const Request& r) { return paired(r, alltoallv_linear); }

}  // namespace gridcoll::detail
