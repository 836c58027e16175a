// Multi-tree WAN-parallel broadcast (gridcoll's own, built on the cluster-of-clusters view of
// [P000] Kielmann, Bal, Gorlatch, "Bandwidth-efficient Collective Communication for Clustered
// Wide Area Systems", IPDPS 2000, and [P001] Karonis et al., "Exploiting Hierarchy in Parallel
// Computer Networks to Optimize Collective Operation Performance", IPDPS 2000). On a WAN where
// every site has a link to every other, one tree uses one link per site at a time; this sends a
// different share of the message along each of C - 1 two-hop trees at once, so every WAN link
// carries data at the same time. Sites are the clusters of Topology level `level` (default 1);
// a site's members take turns as coordinators (share j enters and leaves a site through the
// (j mod size)-th member of a group).
//
//   1. WAN:  segment k of share j: root --WAN--> its holder in the share's home site
//            --WAN--> its holder in every other non-root site
//   2. site: k > 1: share j down a k-ary tree through each site from its holder (SiteOrders);
//            k = 1: rings (site_rings), the site's two groups taking turns on the WAN;
//            the root's site with k = 1: one chain from the root.
//
// Every hop forwards a segment as soon as it has it (win segments in flight per WAN link). Shares
// follow each share's slowest WAN link where the Topology's pair links differ (shares=equal:
// equal). Cost, shares of S = M / (C - 1) in segments of m: the WAN (S/m + 1)(L_w + m / B_w)
// where a send completes on arrival, 2 L_w + (S + m) / B_w when the links never idle, against the
// bound L_w + M / ((C - 1) B_w); then a ring allgather in each site, (n - 1)(L_l + S / B_l) when
// C - 1 <= n, about half of it hidden behind the WAN. Measurements and design history:
// docs/design/multitree.md.
//
// References: [P000] §3, [P001] §3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "gridcoll/algorithms/tree.hpp"
#include "multitree_parts.hpp"
#include "sites.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <tuple>

namespace gridcoll::detail {

namespace {

using namespace multitree;

// Share j's tree through a site of n ranks: from index j mod n in steps of the share's stride,
// the (j mod m)-th of the m strides coprime to n. With k = 1 every share has stride 1: the
// chains are one ring, and with each rank serving its shares nearest their holder first (see
// `depth`), that is the ring allgather: one message into and one out of every rank at a time.
// With k > 1, one stride would put every share's tree on the same pairs of ranks; different
// strides spread them. O(n) to build, O(log n + fanout) per tree.
class SiteOrders {
public:
    SiteOrders(int n, int fanout) : n_(n), fanout_(fanout) {
        for (int d = 1; d < std::max(n, 2); ++d)
            if (std::gcd(d, n) == 1 && (fanout > 1 || d == 1)) strides_.push_back(d);
    }
    struct Place {
        TreeNode node;  // as site indices; no parent and no children: not in the site
        int depth = 0;  // hops from the tree's root
    };
    // Share j's tree at site index `index`, rooted at site index `start`.
    Place tree(int j, int start, int index) const {
        if (index < 0 || index >= n_) return {};
        const long long stride = strides_[static_cast<std::size_t>(j) % strides_.size()];
        const long long pos = (index - start + n_) % n_ * inverse(stride) % n_;
        const auto member = [&](int p) { return static_cast<int>((start + p * stride) % n_); };
        Place p{kary_tree(n_, 0, static_cast<int>(pos), fanout_), 0};
        for (long long q = pos; q > 0; q = (q - 1) / fanout_) ++p.depth;
        if (p.node.parent >= 0) p.node.parent = member(p.node.parent);
        for (int& c : p.node.children) c = member(c);
        return p;
    }

private:
    // a^-1 mod n for a coprime to n (extended Euclid).
    long long inverse(long long a) const {
        long long r0 = n_, r1 = a, t0 = 0, t1 = 1;
        while (r1 != 0) {
            const long long q = r0 / r1;
            std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
            std::tie(t0, t1) = std::make_pair(t1, t0 - q * t1);
        }
        return ((t0 % n_) + n_) % n_;
    }
    int n_, fanout_;
    std::vector<int> strides_;
};

// The broadcast's segments as phase 1 leaves them at one rank, for phase 2.
struct Pieces {
    int shares = 0;
    std::uint64_t rounds = 0;  // segments per share, at most
    std::function<std::optional<Span>(int j, std::uint64_t k)> segment;  // segment k of share j
    std::function<int(int j, std::uint64_t k)> holder;                     // who holds it in my site
    std::vector<std::vector<StepId>> got;  // [j][k]: the WAN step that brings it here, if any
    std::vector<StepId> wan_a, wan_b;       // my WAN steps for group A's segments and for B's
    // One step that completes when all my WAN steps have.
    StepId wan_done(Schedule& s) const {
        std::vector<StepId> all = wan_a;
        all.insert(all.end(), wan_b.begin(), wan_b.end());
        return join(s, all);
    }
};

// Phase 2 with k > 1: share j down a k-ary tree through the site from its holder (SiteOrders),
// once both ends of a link are done with the WAN: a node sends a zero-byte "ready" to each of
// its parents once its WAN steps are done, and a parent sends to a child only after that
// child's ready and its own WAN steps.
void site_trees(Schedule& s, WindowedSends& out, const Pieces& p, const std::vector<int>& mine, int my_index,
                int fanout) {
    const int n = static_cast<int>(mine.size());
    const SiteOrders orders(n, fanout);
    std::vector<SiteOrders::Place> trees;
    std::vector<int> parents, children;  // distinct, as ranks
    for (int j = 0; j < p.shares; ++j) {
        SiteOrders::Place t = orders.tree(j, index_in(mine, p.holder(j, 0)), my_index);
        if (t.node.parent >= 0) add_unique(parents, mine[static_cast<std::size_t>(t.node.parent)]);
        for (int c : t.node.children) add_unique(children, mine[static_cast<std::size_t>(c)]);
        trees.push_back(std::move(t));
    }
    const StepId wan_done = p.wan_done(s);
    const Ready ready(s, parents, wan_done, children);
    // Nearest the holder first, then by segment and share. A parent is one hop nearer than its
    // child in every share's tree, so the two order the messages between them alike.
    std::vector<std::tuple<int, std::uint64_t, int>> order;  // (depth, segment, share)
    for (int j = 0; j < p.shares; ++j)
        for (std::uint64_t k = 0; k < p.rounds; ++k)
            if (p.segment(j, k)) order.emplace_back(trees[static_cast<std::size_t>(j)].depth, k, j);
    std::sort(order.begin(), order.end());
    for (const auto& [depth, k, j] : order) {
        const Span x = *p.segment(j, k);
        const TreeNode& t = trees[static_cast<std::size_t>(j)].node;
        StepId have = p.got[static_cast<std::size_t>(j)][k];
        if (t.parent >= 0) have = s.recv(mine[static_cast<std::size_t>(t.parent)], x);
        for (int c : t.children) {
            const int child = mine[static_cast<std::size_t>(c)];
            out.send(child, x, {have, wan_done, ready.from(child)});
        }
    }
}

// Phase 2 with k = 1, in a site of two groups (Groups; one group, a ring through the site, in the
// root's site and with shares of one segment). After the WAN, A's members hold the first half of
// every share's segments and B's the rest; the groups use the WAN in turns, so one works while
// the other receives (SMPI, 4 MiB, win=2, one group / two: das-4x32 1.869 / 1.826 s, das-8x16
// 0.943 / 0.899 s; two groups taking every other segment instead: 1.917 / 1.011 s, as A's WAN
// turn then ends only a round before B's):
//   A's segments: a ring through A from each holder, once both ends are done with A's WAN
//                 steps, and from every A member to its B partner (index + 1) as it gets them,
//                 while B still receives its segments over the WAN;
//   B's segments: a ring through the whole site from each holder, once both ends of a link are
//                 done with the WAN.
// Why the partner transfers do not hold up B's WAN flows (SimGrid's CM02; the header): an A
// member sends two at once, to its ring successor and to its partner, so each runs at half the
// LAN rate and neither fills B's link (traced: a 135 KB WAN flow takes 155 ms beside a 25 MB/s
// LAN flow into its node, 209 ms beside a 50 MB/s one).
// Every rank takes its messages in one order, (A's ring and the partner transfers first, then
// the site's ring; the sender's place in the piece's ring; segment; share), the same at both
// ends of every link.
void site_rings(Schedule& s, WindowedSends& out, const Pieces& p, const std::vector<int>& mine, int my_index,
                const Groups& g, bool acks) {
    const int n = static_cast<int>(mine.size());
    if (n < 2) return;
    const bool in_a = !g.index_in_b(my_index);
    const int my_place = g.place(my_index);
    // An A member's partner, or a B member's A partner (index - 1); -1: none.
    const int partner = in_a ? g.partner(my_index) : my_index - 1;

    const StepId a_done = join(s, p.wan_a);
    const StepId wan_done = p.wan_done(s);
    const GroupReady ready = group_ready(s, mine, my_index, g, a_done, wan_done);

    struct Move {
        int ring, place;  // 0: A's ring and the partner transfers, 1: the site's ring; sender's place
        std::uint64_t k;
        int j;
        bool send;
        int peer;
    };
    std::vector<Move> moves;
    for (int j = 0; j < p.shares; ++j)
        for (std::uint64_t k = 0; k < p.rounds; ++k) {
            if (!p.segment(j, k)) continue;
            const int start = index_in(mine, p.holder(j, k));
            if (!g.in_b(k)) {  // A's ring, and A to B
                if (in_a) {
                    const ChainPos c = chain_pos(g.a, g.place(start), my_place);
                    if (c.prev >= 0) moves.push_back({0, c.offset - 1, k, j, false, c.prev});
                    if (c.next >= 0) moves.push_back({0, c.offset, k, j, true, c.next});
                    if (partner >= 0) moves.push_back({0, c.offset, k, j, true, mine[static_cast<std::size_t>(partner)]});
                } else {
                    const int sender_place = chain_pos(g.a, g.place(start), g.place(partner)).offset;
                    moves.push_back({0, sender_place, k, j, false, mine[static_cast<std::size_t>(partner)]});
                }
            } else {  // the site's ring
                const ChainPos c = chain_pos(mine, start, my_index);
                if (c.prev >= 0) moves.push_back({1, c.offset - 1, k, j, false, c.prev});
                if (c.next >= 0) moves.push_back({1, c.offset, k, j, true, c.next});
            }
        }
    std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
        return std::tie(a.ring, a.place, a.k, a.j, a.send) < std::tie(b.ring, b.place, b.k, b.j, b.send);
    });
    std::vector<std::vector<StepId>> have = p.got;
    for (const Move& m : moves) {
        const Span x = *p.segment(m.j, m.k);
        StepId& h = have[static_cast<std::size_t>(m.j)][m.k];
        if (!m.send)
            h = site_recv(s, acks, m.peer, x);
        else if (m.ring == 1)
            out.send(m.peer, x, {h, wan_done, ready.site->from(m.peer)});
        else if (in_a && partner >= 0 && m.peer == mine[static_cast<std::size_t>(partner)])
            out.send(m.peer, x, {h, a_done});
        else
            out.send(m.peer, x, {h, a_done, ready.a->from(m.peer)});
    }
}

// Who holds segment k of share j in each site after the WAN phase, and the shares' homes.
struct BcastPlan {
    const Request& r;
    Sites sites;
    int root_site = 0, my_site = 0, my_index = 0;
    std::vector<int> home;       // share j's home: the j-th non-root site
    std::vector<Groups> groups;  // per site (two groups with k = 1 and shares of several segments)

    BcastPlan(const Request& req, bool rings, std::uint64_t rounds, const Sites& s) : r(req), sites(s) {
        root_site = sites.site_of[static_cast<std::size_t>(r.root)];
        my_site = sites.site_of[static_cast<std::size_t>(r.rank)];
        my_index = index_in(mine(), r.rank);
        for (int i = 0; i < sites.count(); ++i)
            if (i != root_site) home.push_back(i);
        for (int i = 0; i < sites.count(); ++i)
            groups.emplace_back(sites.members[static_cast<std::size_t>(i)], rings && i != root_site ? rounds : 1);
    }
    const std::vector<int>& mine() const { return sites.members[static_cast<std::size_t>(my_site)]; }
    // The root in its site; else the (j mod size)-th of the segment's group.
    int holder(int site, int j, std::uint64_t k) const {
        return site == root_site ? r.root : groups[static_cast<std::size_t>(site)].coordinator(j, k);
    }
};

// Phase 1, the WAN: segment k of share j from the root to its holder in the share's home site,
// relayed from there to its holders in the other sites.
void wan_phase(Schedule& s, WindowedSends& out, const BcastPlan& b, Pieces& p) {
    const Request& r = b.r;
    p.got.assign(static_cast<std::size_t>(p.shares), std::vector<StepId>(p.rounds, kNoStep));
    for (std::uint64_t k = 0; k < p.rounds && !b.home.empty(); ++k) {
        std::vector<StepId>& wan = b.groups[static_cast<std::size_t>(b.my_site)].in_b(k) ? p.wan_b : p.wan_a;
        for (int j = 0; j < p.shares; ++j) {
            const auto x = p.segment(j, k);
            if (!x) continue;
            const int h = b.home[static_cast<std::size_t>(j)];
            if (r.rank == r.root) {
                wan.push_back(out.send(b.holder(h, j, k), *x, {}));
            } else if (r.rank == b.holder(h, j, k)) {
                const StepId g = p.got[static_cast<std::size_t>(j)][k] = s.recv(r.root, *x);
                wan.push_back(g);
                for (int i : b.home)
                    if (i != h) wan.push_back(out.send(b.holder(i, j, k), *x, {g}));
            } else if (b.my_site != b.root_site && r.rank == b.holder(b.my_site, j, k)) {
                wan.push_back(p.got[static_cast<std::size_t>(j)][k] = s.recv(b.holder(h, j, k), *x));
            }
        }
    }
}

// Phase 2 in the root's site with k = 1: one chain from the root through the site, in segments
// of at least the eager limit, once the root is done with the WAN.
void root_site_chain(Schedule& s, WindowedSends& out, const BcastPlan& b, const Pieces& p) {
    const Request& r = b.r;
    const StepId wan_done = p.wan_done(s);
    const ChainPos pos = chain_pos(b.mine(), index_in(b.mine(), r.root), b.my_index);
    const Segments segs(r.bytes, r.params.segment == 0 ? 0 : even_segment(r.bytes, std::max(r.params.segment, kEagerLimit), 1));
    for (std::uint64_t k = 0; k < segs.count(); ++k) {
        const Span x = segs.span(Buf::Out, k);
        const StepId got = pos.prev >= 0 ? site_recv(s, true, pos.prev, x) : kNoStep;
        if (pos.next >= 0) out.send(pos.next, x, {got, wan_done});
    }
}

}  // namespace

Schedule bcast_multitree(const Request& r) {
    Schedule s(r.rank, r.size);
    const Sites sites = sites_at(*r.topology, r.params.cluster_level);
    const bool rings = r.params.fanout == 1;
    const int root_site = sites.site_of[static_cast<std::size_t>(r.root)];
    std::vector<int> homes;
    for (int i = 0; i < sites.count(); ++i)
        if (i != root_site) homes.push_back(i);
    Pieces p;
    p.shares = std::max(1, sites.count() - 1);
    const Shares shares(r.bytes, p.shares, 1,
                        r.params.equal_shares ? std::vector<double>{}
                                              : bcast_share_weights(site_bandwidths(*r.topology, sites, r.params.cluster_level),
                                                                    root_site, homes));
    const std::uint64_t seg = even_segment(shares.each, r.params.segment, 1);
    for (int j = 0; j < p.shares; ++j) p.rounds = std::max(p.rounds, Segments(shares.length(j), seg).count());
    p.segment = [&shares, seg](int j, std::uint64_t k) -> std::optional<Span> {
        const Segments segs(shares.length(j), seg);
        if (k >= segs.count()) return std::nullopt;
        return segs.span(Buf::Out, k, shares.offset(j));
    };
    const BcastPlan b(r, rings, p.rounds, sites);
    p.holder = [&b](int j, std::uint64_t k) { return b.holder(b.my_site, j, k); };
    // WAN windows count the messages to one site, whichever member they go to. Acknowledged
    // eager messages in my site: the root's chain, and rings whose groups have three or more.
    const bool acks = rings && (b.my_site == b.root_site || b.mine().size() >= 6);
    WindowedSends out = site_windows(s, sites, b.my_site, r.params.wan_window, acks);
    wan_phase(s, out, b, p);
    if (rings && b.my_site == b.root_site)
        root_site_chain(s, out, b, p);
    else if (rings)
        site_rings(s, out, p, b.mine(), b.my_index, b.groups[static_cast<std::size_t>(b.my_site)], acks);
    else
        site_trees(s, out, p, b.mine(), b.my_index, r.params.fanout);
    return s;
}

}  // namespace gridcoll::detail
