// Several leaders per site for the allgather — the site leaders' direct exchange of
// leaders_allgather.cpp (after MagPIe: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe: MPI's
// Collective Communication Operations for Clustered Wide Area Systems", PPoPP 1999) with each
// site's WAN messages spread over k of its ranks on different nodes, as coleaders.cpp spreads the
// allreduce's, for sites many enough that one node's link, not the WAN, limits:
//
//   site s:   members --LAN--> leader(s)                        (the site's blocks)
//   site s:   leader(s) --LAN--> its k - 1 co-leaders             (the site's blocks, each)
//   WAN:      s's co-leader facing t --> t's co-leader facing s   (one message per site pair)
//   site s:   each co-leader broadcasts (binomial) every site's blocks it received; the leader
//             its own site's, to the ranks that lack them
//
// Cost on C sites of n ranks, blocks of m bytes: one WAN latency plus the LAN steps of `leaders`
// and one more LAN hop; through the busiest node link (k - 1 + ceil((C - 1) / k)) n m out and
// ceil((C - 1) / k) n m in, where a lone leader passes (C - 1) n m each way, and the site's
// broadcasts of the C parts run from k nodes at once. Sites must be runs of consecutive ranks
// (otherwise, and for k = 1, the leaders' allgather runs).
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"
#include "coleaders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

// Site s's leaders: its leader, then the lowest rank of each other cluster one level below the
// sites (another node), up to k of them.
std::vector<int> leaders_of(const Topology& t, const Sites& sites, int level, int s, int k) {
    const int lead = site_leader(t, sites, level, s);
    const auto node = [&](int q) { return t.depth(q) > level + 1 ? t.cluster(q, level + 1) : -1 - q; };
    std::vector<int> l{lead}, nodes{node(lead)};
    for (int q : sites.members[static_cast<std::size_t>(s)]) {
        if (static_cast<int>(l.size()) >= k) break;
        if (std::find(nodes.begin(), nodes.end(), node(q)) != nodes.end()) continue;
        l.push_back(q);
        nodes.push_back(node(q));
    }
    return l;
}

struct ColeadersAllgather {
    const Request& r;
    Composer& c;
    const Sites& sites;
    std::vector<std::vector<int>> L;  // per site, its leaders

    int C() const { return sites.count(); }
    int k(int s) const { return static_cast<int>(L[static_cast<std::size_t>(s)].size()); }
    // The rank of site `a` that meets site `b`.
    int towards(int a, int b) const {
        return L[static_cast<std::size_t>(a)][static_cast<std::size_t>(facing(a, b, C(), k(a)))];
    }
    Span part(int s) const {
        const std::vector<int>& m = sites.members[static_cast<std::size_t>(s)];
        const std::uint64_t at = block_offset(r, m.front());
        return Span{Buf::Out, at, block_offset(r, m.back() + 1) - at};
    }

    // Site `x`'s part down a binomial tree of `group` (increasing ranks) from `from`.
    void broadcast(int x, const std::vector<int>& group, int from) {
        if (group.size() < 2) return;
        int me = -1, root = 0;
        for (std::size_t i = 0; i < group.size(); ++i) {
            if (group[i] == r.rank) me = static_cast<int>(i);
            if (group[i] == from) root = static_cast<int>(i);
        }
        if (me < 0) return;
        Request one = r;
        one.coll = Collective::Bcast;
        one.bytes = part(x).len;
        one.counts = nullptr;
        c.embed(build_for_group(one, static_cast<int>(group.size()), me, root, Method("binomial")), group,
                Placement{Span{Buf::In, 0, 0}, Span{Buf::Out, part(x).off, 0}});
    }

    void build() {
        const int s = sites.site_of[static_cast<std::size_t>(r.rank)];
        const std::vector<int>& mine = sites.members[static_cast<std::size_t>(s)];
        const std::vector<int>& lead = L[static_cast<std::size_t>(s)];
        const auto at = std::find(lead.begin(), lead.end(), r.rank);
        const int j = at == lead.end() ? -1 : static_cast<int>(at - lead.begin());
        const Span block{Buf::Out, block_offset(r, r.rank), block_bytes(r, r.rank)};
        if (j == 0) {
            c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::In, 0, block.len}, block});
            for (int q : mine)
                if (q != r.rank)
                    c.add(Step{
                        Op::Recv, Order::DstLeft, 0, q, {}, Span{Buf::Out, block_offset(r, q), block_bytes(r, q)}});
            for (int y = 1; y < k(s); ++y)
                c.add(Step{Op::Send, Order::DstLeft, 0, lead[static_cast<std::size_t>(y)], part(s), {}});
        } else {
            c.add(Step{Op::Send, Order::DstLeft, 0, lead.front(), Span{Buf::In, 0, block.len}, {}});
            if (j > 0) c.add(Step{Op::Recv, Order::DstLeft, 0, lead.front(), {}, part(s)});
        }
        if (j >= 0)
            for (int t = 0; t < C(); ++t) {
                if (t == s || facing(s, t, C(), k(s)) != j) continue;
                c.add(Step{Op::Send, Order::DstLeft, 0, towards(t, s), part(s), {}});
                c.add(Step{Op::Recv, Order::DstLeft, 0, towards(t, s), {}, part(t)});
            }
        // Down the site: the others' parts from the leader that got each, the own part from the
        // leader to the ranks that are not leaders.
        std::vector<int> rest{lead.front()};
        for (int q : mine)
            if (std::find(lead.begin(), lead.end(), q) == lead.end()) rest.push_back(q);
        std::sort(rest.begin(), rest.end());
        broadcast(s, rest, lead.front());
        for (int t = 0; t < C(); ++t)
            if (t != s) broadcast(t, mine, towards(s, t));
    }
};

}  // namespace

Schedule allgather_coleaders(const Request& r) {
    int level = 0;
    const Sites sites = first_split(*r.topology, level);
    const int k = std::max(1, r.params.fanout);
    if (k == 1 || !sites_are_runs(sites) || r.counts != nullptr) return allgather_leaders(r);
    Schedule s(r.rank, r.size);
    if (block_offset(r, r.size) == 0) return s;
    Composer c(s);
    ColeadersAllgather a{r, c, sites, {}};
    const int spread = std::min(k, std::max(1, sites.count() - 1));  // no more leaders than other sites
    for (int x = 0; x < sites.count(); ++x) a.L.push_back(leaders_of(*r.topology, sites, level, x, spread));
    a.build();
    return s;
}

}  // namespace gridcoll::detail
