// Several leaders per site — the site leaders' direct allreduce, broadcast and reduce of `leaders` (after
// MagPIe: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe: MPI's Collective Communication
// Operations for Clustered Wide Area Systems", PPoPP 1999) with the WAN messages of each site
// spread over k of its ranks on different nodes, for sites many enough that one node's link, not
// the WAN, limits: a lone leader sends and receives C - 1 messages, each of k co-leaders about
// (C - 1) / k. (Open MPI's han and MPICH-G2 keep one leader per site, and a tree between them.)
//
// Allreduce:
//   reduce up each site to its leader (binomial, every level below the sites)
//   the leader hands the site's partial to its k - 1 co-leaders (the masters of its next parts)
//   site S sends its partial to site T, d places on, from its co-leader (d - 1) mod k_S
//   each co-leader sums what it received and sends that to its leader, which adds it all up
//   binomial broadcast down each site
//
// Cost, C sites, small vectors: one WAN latency plus the LAN steps of `leaders` and two more
// LAN hops (to the co-leaders and back), with ceil((C - 1) / k) WAN messages of m bytes through
// each co-leader's node link instead of C - 1. Commutative operations only.
//
// Broadcast: the root hands the message to the k - 1 co-leaders of its site (one LAN hop each,
// from its node link), and every leader of the root's site sends it straight to the leaders of
// the sites it faces (site T, d places after the root's, from co-leader (d - 1) mod k); then a
// binomial broadcast down each site. Cost: one WAN latency plus (k - 1) LAN messages and
// ceil((C - 1) / k) WAN messages through the busiest node link, then the sites' LAN steps.
//
// Reduce: the broadcast turned round — a binomial reduce up each site, each site's partial straight
// to the root's co-leader facing it, which sums what it gets and hands that to the root. Cost: the
// sites' LAN steps, one WAN latency, ceil((C - 1) / k) WAN messages into the busiest node link and
// (k - 1) LAN messages into the root's. Commutative operations only.
//
// References: [MagPIe99], [P001] §3 (algorithms/REFERENCES.md).
#include <algorithm>

#include "../core/builders.hpp"
#include "coleaders.hpp"
#include "hierarchy.hpp"

namespace gridcoll::detail {

namespace {

// Per site (in the top group's order): its leader, then up to k - 1 co-leaders, the masters of
// the site's next parts (other nodes, where the site has them), for a plan rooted at `root`.
std::vector<std::vector<int>> site_leaders(const Topology& t, const LevelPlan& plan, int k, int root = 0) {
    const auto at_root = level_groups(t, plan.cuts, root, root);  // the root is a master everywhere
    std::vector<std::vector<int>> v;
    for (int m : at_root.front().members) {
        std::vector<int> l{m};
        const auto groups = level_groups(t, plan.cuts, m, root);
        if (groups.size() > 1)
            for (int x : groups[1].members)
                if (x != m && static_cast<int>(l.size()) < k) l.push_back(x);
        v.push_back(std::move(l));
    }
    return v;
}

// This rank's part in the spread exchange among the sites' leaders `L`.
void spread_exchange(Composer& c, const Request& r, const std::vector<std::vector<int>>& L, Span partial, Span out) {
    const std::uint64_t m = r.bytes;
    const int C = static_cast<int>(L.size());
    int s = -1, j = -1;
    for (int x = 0; x < C && s < 0; ++x)
        for (std::size_t y = 0; y < L[static_cast<std::size_t>(x)].size(); ++y)
            if (L[static_cast<std::size_t>(x)][y] == r.rank) s = x, j = static_cast<int>(y);
    if (s < 0) return;
    const std::vector<int>& mine = L[static_cast<std::size_t>(s)];
    const int k = static_cast<int>(mine.size());
    const auto k_of = [&](int site) { return static_cast<int>(L[static_cast<std::size_t>(site)].size()); };
    const auto add = [&](Span from, Span into, bool first) {
        if (m > 0) c.add(first ? Step{Op::Copy, Order::DstLeft, 0, -1, from, into} : Step{Op::Reduce, Order::DstLeft, 0, -1, from, into});
    };
    // The site's partial, at every one of its leaders.
    Span site = partial;
    if (j == 0) {
        for (int y = 1; y < k; ++y) c.add(Step{Op::Send, Order::DstLeft, 0, mine[static_cast<std::size_t>(y)], partial, {}});
    } else {
        site = c.fresh_tmp(m);
        c.add(Step{Op::Recv, Order::DstLeft, 0, mine[0], {}, site});
    }
    // Site a's co-leader facing b sends to b's co-leader facing a.
    const auto leader_towards = [&](int a, int b) {
        return L[static_cast<std::size_t>(a)][static_cast<std::size_t>(facing(a, b, C, k_of(a)))];
    };
    const auto mine_towards = [&](int other) { return facing(s, other, C, k); };
    for (int T = 0; T < C; ++T)
        if (T != s && mine_towards(T) == j) c.add(Step{Op::Send, Order::DstLeft, 0, leader_towards(T, s), site, {}});
    // What this leader receives: the partials of the sites it faces.
    const Span sum = j == 0 ? out : c.fresh_tmp(m);
    bool have = j == 0;
    if (j == 0) add(partial, out, true);
    for (int S = 0; S < C; ++S) {
        if (S == s || mine_towards(S) != j) continue;
        const Span got = c.fresh_tmp(m);
        c.add(Step{Op::Recv, Order::DstLeft, 0, leader_towards(S, s), {}, got});
        add(got, sum, !have);
        have = true;
    }
    if (j > 0) {
        if (have) c.add(Step{Op::Send, Order::DstLeft, 0, mine[0], sum, {}});
        return;
    }
    for (int y = 1; y < k && y < C - 1; ++y) {  // co-leader y faces the sites y + 1, y + 1 + k, ... places on
        const Span got = c.fresh_tmp(m);
        c.add(Step{Op::Recv, Order::DstLeft, 0, mine[static_cast<std::size_t>(y)], {}, got});
        add(got, out, false);
    }
}

// The broadcast among the sites' leaders `L` from site `from` (whose leader is the root): the
// root's co-leaders take the message over the LAN, and each sends it to the sites it faces.
void spread_bcast(Composer& c, const Request& r, const std::vector<std::vector<int>>& L, int from) {
    const int C = static_cast<int>(L.size());
    const Span out{Buf::Out, 0, r.bytes};
    const std::vector<int>& src = L[static_cast<std::size_t>(from)];
    const int k = static_cast<int>(std::min<std::size_t>(src.size(), static_cast<std::size_t>(std::max(1, C - 1))));
    for (int S = 0; S < C; ++S)
        if (S != from && L[static_cast<std::size_t>(S)].front() == r.rank)
            c.add(Step{Op::Recv, Order::DstLeft, 0, src[static_cast<std::size_t>(facing(from, S, C, k))], {}, out});
    const auto me = std::find(src.begin(), src.begin() + k, r.rank);
    if (me == src.begin() + k) return;
    const int j = static_cast<int>(me - src.begin());
    Span data = out;
    if (j == 0) {
        for (int y = 1; y < k; ++y) c.add(Step{Op::Send, Order::DstLeft, 0, src[static_cast<std::size_t>(y)], out, {}});
    } else {  // scratch: the broadcast down the site later receives into Out
        data = c.fresh_tmp(r.bytes);
        c.add(Step{Op::Recv, Order::DstLeft, 0, src.front(), {}, data});
    }
    for (int T = 0; T < C; ++T)
        if (T != from && facing(from, T, C, k) == j) c.add(Step{Op::Send, Order::DstLeft, 0, L[static_cast<std::size_t>(T)].front(), data, {}});
}

// The reduce among the sites' leaders `L` into site `to` (whose leader is the root), the broadcast
// turned round: each site's partial goes straight to the root's co-leader facing it, which sums
// what it gets and hands that to the root.
void spread_reduce(Composer& c, const Request& r, const std::vector<std::vector<int>>& L, int to, Span partial, Span out) {
    const int C = static_cast<int>(L.size());
    const std::uint64_t m = r.bytes;
    const std::vector<int>& dst = L[static_cast<std::size_t>(to)];
    const int k = static_cast<int>(std::min<std::size_t>(dst.size(), static_cast<std::size_t>(std::max(1, C - 1))));
    for (int S = 0; S < C; ++S)
        if (S != to && L[static_cast<std::size_t>(S)].front() == r.rank)
            c.add(Step{Op::Send, Order::DstLeft, 0, dst[static_cast<std::size_t>(facing(to, S, C, k))], partial, {}});
    const auto me = std::find(dst.begin(), dst.begin() + k, r.rank);
    if (me == dst.begin() + k) return;
    const int j = static_cast<int>(me - dst.begin());
    const Span sum = j == 0 ? out : c.fresh_tmp(m);
    bool have = j == 0;  // the root starts from its own site's partial
    if (j == 0 && m > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, partial, out});
    const auto take = [&](int from) {
        const Span got = c.fresh_tmp(m);
        c.add(Step{Op::Recv, Order::DstLeft, 0, from, {}, got});
        if (m > 0) c.add(have ? Step{Op::Reduce, Order::DstLeft, 0, -1, got, sum} : Step{Op::Copy, Order::DstLeft, 0, -1, got, sum});
        have = true;
    };
    for (int S = 0; S < C; ++S)
        if (S != to && facing(to, S, C, k) == j) take(L[static_cast<std::size_t>(S)].front());
    if (j > 0) {
        c.add(Step{Op::Send, Order::DstLeft, 0, dst.front(), sum, {}});
        return;
    }
    for (int y = 1; y < k; ++y) take(dst[static_cast<std::size_t>(y)]);
}

// Where the root's site sits among the leaders' sites.
int root_site(const std::vector<std::vector<int>>& leaders, int root) {
    int s = 0;
    while (leaders[static_cast<std::size_t>(s)].front() != root) ++s;
    return s;
}

}  // namespace

Schedule reduce_coleaders(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const LevelPlan plan = leaders_plan(r, r.root, Method("flat"), Method("binomial"));
    const Span out{Buf::Out, 0, r.bytes};
    if (r.size == 1) {
        compose_reduce(c, r, plan, r.root, out);
        return s;
    }
    const auto leaders = site_leaders(*r.topology, plan, std::max(1, r.params.fanout), r.root);
    const int to = root_site(leaders, r.root);
    compose_reduce(c, r, plan, r.root, out, [&](Composer& cc, const LevelGroup*, Span partial, Span total) {
        spread_reduce(cc, r, leaders, to, partial, total);
    });
    return s;
}

Schedule bcast_coleaders(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.size == 1) return s;
    Composer c(s);
    const LevelPlan plan = leaders_plan(r, r.root, Method("linear"), Method("binomial"));
    const auto leaders = site_leaders(*r.topology, plan, std::max(1, r.params.fanout), r.root);
    const int from = root_site(leaders, r.root);
    compose_bcast(c, r, plan, r.root, [&](Composer& cc, const LevelGroup*) { spread_bcast(cc, r, leaders, from); });
    return s;
}

Schedule allreduce_coleaders(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const LevelPlan plan = leaders_plan(r, 0, Method("binomial"), Method("binomial"));
    if (r.size == 1) {
        if (r.bytes > 0) s.copy(Span{Buf::In, 0, r.bytes}, Span{Buf::Out, 0, r.bytes});
        return s;
    }
    const auto leaders = site_leaders(*r.topology, plan, std::max(1, r.params.fanout));
    compose_allreduce(c, r, plan, [&](Composer& cc, const LevelGroup*, Span partial, Span out) {
        spread_exchange(cc, r, leaders, partial, out);
    });
    return s;
}

}  // namespace gridcoll::detail
