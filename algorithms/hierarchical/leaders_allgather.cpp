// Site leaders that talk directly: the latency-optimal small-message allgather (after MagPIe,
// [MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe: MPI's Collective Communication
// Operations for Clustered Wide Area Systems", PPoPP 1999; the sites are the Topology's first
// real split, as in leaders.cpp). Every rank sends its block to its site's leader (its gateway,
// [P004], else its lowest rank); the leaders swap their sites' blocks directly, one WAN message
// per pair of sites; each leader then broadcasts all P blocks through its site down a binomial
// tree.
//
//   site s:   members --LAN--> leader(s)
//   WAN:      leader(s) --> leader(t) for every other site t (site s's blocks, one message)
//   site s:   leader(s) --binomial--> members (all P blocks)
//
// Cost on C sites of n ranks, blocks of m bytes: L_l + (n - 1) m / B_l at a leader, then one
// L_w + (C - 1) n m / B_w, then log2(n) (L_l + P m / B_l): one WAN latency where recursive
// doubling or a ring pays one per WAN round. A site whose ranks are not consecutive packs its
// blocks (and unpacks the others') in runs of consecutive ranks. Blocks of different sizes
// (allgatherv) travel the same way. With a segment size (`leaders:seg=S`) and sites of
// consecutive ranks, the streamed form of leaders_allgather_streamed.cpp runs instead.
//
// References: [MagPIe99], [P004] (algorithms/REFERENCES.md).
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

struct LeadersAllgather {
    const Request& r;
    Composer& c;
    Sites sites;
    int level = 0;

    int leader(int site) const { return site_leader(*r.topology, sites, level, site); }
    Span blocks(int first, int count) const {
        const std::uint64_t at = block_offset(r, first);
        return Span{Buf::Out, at, block_offset(r, first + count) - at};
    }
    std::uint64_t site_bytes(const std::vector<int>& members) const {
        std::uint64_t n = 0;
        for (int q : members) n += block_bytes(r, q);
        return n;
    }

    // My site's blocks, gathered at its leader (me): one span of Out, or packed into Tmp.
    Span gather_site(const std::vector<int>& mine) {
        c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::In, 0, block_bytes(r, r.rank)}, blocks(r.rank, 1)});
        for (int q : mine)
            if (q != r.rank) c.add(Step{Op::Recv, Order::DstLeft, 0, q, {}, blocks(q, 1)});
        const auto runs = runs_of(mine);
        if (runs.size() == 1) return blocks(runs[0].first, runs[0].second);
        const Span packed = c.fresh_tmp(site_bytes(mine));
        std::uint64_t at = packed.off;
        for (const auto& [first, count] : runs) {
            const Span b = blocks(first, count);
            c.add(Step{Op::Copy, Order::DstLeft, 0, -1, b, Span{Buf::Tmp, at, b.len}});
            at += b.len;
        }
        return packed;
    }

    // Site `site`'s blocks from its leader, straight into Out or through Tmp.
    void receive_site(int site) {
        const std::vector<int>& m = sites.members[static_cast<std::size_t>(site)];
        const auto runs = runs_of(m);
        if (runs.size() == 1) {
            c.add(Step{Op::Recv, Order::DstLeft, 0, leader(site), {}, blocks(runs[0].first, runs[0].second)});
            return;
        }
        const Span packed = c.fresh_tmp(site_bytes(m));
        c.add(Step{Op::Recv, Order::DstLeft, 0, leader(site), {}, packed});
        std::uint64_t at = packed.off;
        for (const auto& [first, count] : runs) {
            const Span b = blocks(first, count);
            c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::Tmp, at, b.len}, b});
            at += b.len;
        }
    }

    void build() {
        const int my_site = sites.site_of[static_cast<std::size_t>(r.rank)];
        const std::vector<int>& mine = sites.members[static_cast<std::size_t>(my_site)];
        const int lead = leader(my_site);
        if (r.rank != lead) {
            c.add(Step{Op::Send, Order::DstLeft, 0, lead, Span{Buf::In, 0, block_bytes(r, r.rank)}, {}});
        } else {
            const Span own = gather_site(mine);
            for (int t = 0; t < sites.count(); ++t)
                if (t != my_site) c.add(Step{Op::Send, Order::DstLeft, 0, leader(t), own, {}});
            for (int t = 0; t < sites.count(); ++t)
                if (t != my_site) receive_site(t);
        }
        if (mine.size() < 2) return;
        // All P blocks down a binomial tree of the site from its leader.
        int me = 0, root = 0;
        for (std::size_t i = 0; i < mine.size(); ++i) {
            if (mine[i] == r.rank) me = static_cast<int>(i);
            if (mine[i] == lead) root = static_cast<int>(i);
        }
        Request all = r;
        all.coll = Collective::Bcast;
        all.bytes = block_offset(r, r.size);
        all.counts = nullptr;
        c.embed(build_for_group(all, static_cast<int>(mine.size()), me, root, Method("binomial")), mine, Placement{});
    }
};

}  // namespace

Schedule allgather_leaders(const Request& r) {
    Schedule s(r.rank, r.size);
    if (block_offset(r, r.size) == 0) return s;
    int level = 0;
    Sites sites = first_split(*r.topology, level);
    if (r.params.segment > 0 && sites_are_runs(sites)) return allgather_leaders_streamed(r, sites, level);
    Composer c(s);
    LeadersAllgather a{r, c, std::move(sites), level};
    a.build();
    return s;
}

}  // namespace gridcoll::detail
