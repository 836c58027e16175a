// Site leaders for the irregular gather and scatter (gatherv, scatterv), after MagPIe's
// two-layer gather and scatter ([MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe:
// MPI's Collective Communication Operations for Clustered Wide Area Systems", PPoPP 1999;
// sites = the Topology's first real split, leaders as in leaders.cpp): every block crosses the
// WAN once, in one message per site, and a site's leader talks to its own ranks over the LAN.
//
//   gatherv   members --LAN--> leader(s) (site s's blocks, packed in rank order)
//             leader(s) --WAN--> root (one message); the root's site sends straight to it
//   scatterv  the same, reversed
//
// Cost on C sites of n ranks, blocks about m: (n-1) L_l + n m / B_l at a leader, then
// (C-1) L_w overheads and (P - n) m / B_w at the root: one WAN latency where the linear methods
// pay P - n WAN messages' overheads at the root. Unlike the flat methods, a leader needs its
// site's counts: the PMPI library hands every rank the root's counts first.
//
// References: [MagPIe99], [P004] (algorithms/REFERENCES.md).
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

struct LeadersBlocks {
    const Request& r;
    Composer& c;
    bool gather;  // else scatter
    Sites sites;
    int level = 0;

    // Where block j lies at the root (Out for gatherv, In for scatterv).
    Span at_root(int first, int count) const {
        const std::uint64_t at = block_offset(r, first);
        return Span{gather ? Buf::Out : Buf::In, at, block_offset(r, first + count) - at};
    }
    std::uint64_t site_bytes(int site) const {
        std::uint64_t n = 0;
        for (int q : sites.members[static_cast<std::size_t>(site)]) n += block_bytes(r, q);
        return n;
    }
    // My own block: In for gatherv, Out for scatterv.
    Span own() const { return Span{gather ? Buf::In : Buf::Out, 0, block_bytes(r, r.rank)}; }

    // Data moves towards the root in a gather, away from it in a scatter. I am the far end of
    // this message (the peer is nearer the root) ...
    void toward_root(int peer, Span sp) {
        if (sp.len == 0) return;
        if (gather) c.add(Step{Op::Send, Order::DstLeft, 0, peer, sp, {}});
        else c.add(Step{Op::Recv, Order::DstLeft, 0, peer, {}, sp});
    }
    // ... or the near end.
    void from_far(int peer, Span sp) {
        if (sp.len == 0) return;
        if (gather) c.add(Step{Op::Recv, Order::DstLeft, 0, peer, {}, sp});
        else c.add(Step{Op::Send, Order::DstLeft, 0, peer, sp, {}});
    }
    // A local copy between the root-side span `near` and the far-side span `far`.
    void flow(Span near, Span far) {
        if (near.len == 0) return;
        if (gather) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, far, near});
        else c.add(Step{Op::Copy, Order::DstLeft, 0, -1, near, far});
    }

    // The root with site `site` (not its own): the site's blocks in one message to or from its
    // leader, straight from their places when the site's ranks are consecutive.
    void root_with_site(int site) {
        const int lead = site_leader(*r.topology, sites, level, site, r.root);
        const auto runs = runs_of(sites.members[static_cast<std::size_t>(site)]);
        if (runs.size() == 1) return from_far(lead, at_root(runs[0].first, runs[0].second));
        const Span packed = c.fresh_tmp(site_bytes(site));
        if (!gather) pack_runs(runs, packed);
        from_far(lead, packed);
        if (gather) pack_runs(runs, packed);
    }
    void pack_runs(const std::vector<std::pair<int, int>>& runs, Span packed) {
        std::uint64_t at = packed.off;
        for (const auto& [first, count] : runs) {
            const Span place = at_root(first, count);
            flow(place, Span{Buf::Tmp, at, place.len});
            at += place.len;
        }
    }

    // A leader (not the root): its members' blocks to or from a packed buffer, and that to or
    // from the root.
    void leader(int site) {
        const std::vector<int>& mine = sites.members[static_cast<std::size_t>(site)];
        const Span packed = c.fresh_tmp(site_bytes(site));
        std::uint64_t at = packed.off;
        if (!gather) toward_root(r.root, packed);
        for (int q : mine) {
            const Span slot{Buf::Tmp, at, block_bytes(r, q)};
            at += slot.len;
            if (q == r.rank) flow(slot, own());
            else from_far(q, slot);
        }
        if (gather) toward_root(r.root, packed);
    }

    void build() {
        const int site = sites.site_of[static_cast<std::size_t>(r.rank)];
        const int lead = site_leader(*r.topology, sites, level, site, r.root);
        if (r.rank != lead) return toward_root(lead, own());
        if (r.rank != r.root) return leader(site);
        for (int q : sites.members[static_cast<std::size_t>(site)])
            if (q == r.rank) flow(at_root(q, 1), own());
            else from_far(q, at_root(q, 1));
        for (int t = 0; t < sites.count(); ++t)
            if (t != site && site_bytes(t) > 0) root_with_site(t);
    }
};

Schedule leaders_blocks(const Request& r, bool gather) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    LeadersBlocks b{r, c, gather, {}, 0};
    b.sites = first_split(*r.topology, b.level);
    b.build();
    return s;
}

}  // namespace

Schedule gatherv_leaders(const Request& r) { return leaders_blocks(r, true); }
Schedule scatterv_leaders(const Request& r) { return leaders_blocks(r, false); }

}  // namespace gridcoll::detail
