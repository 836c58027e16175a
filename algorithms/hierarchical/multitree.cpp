// Multi-tree WAN-parallel broadcast and allreduce (gridcoll's own; beyond papers 000/001, after
// the bandwidth bounds in ../shared/DESIGN.md). On a WAN where every site has a link to every
// other (mesh, or a star with a fast core), one tree uses one link per site at a time; these
// send a different share of the message along each of C - 1 two-hop trees at once, so every WAN
// link carries data at the same time. Sites are the clusters of Topology level `level`
// (default 1); a site's members take turns as coordinators (share j enters and leaves site i
// through the (j mod size)-th member of a group, Groups), so several coordinators per site share
// the WAN traffic. Gateways (paper 004) are not made coordinators: the point is to spread a
// site's WAN traffic over several nodes' links, and a gateway that every share crosses anyway
// (madiii; a link on the route in SimGrid's XML) gains nothing from also holding them all.
//
// Broadcast: the message is cut into C - 1 shares, one per non-root site ("home" site), in two
// phases.
//   1. WAN:  segment k of share j: root --WAN--> its holder in the share's home site
//            --WAN--> its holder in every other non-root site
//   2. site: k > 1: share j down a k-ary tree through each site from its holder (SiteOrders);
//            k = 1: rings (site_rings): with shares of several segments a site's two groups
//            take turns on the WAN (A holds the first half of each share, B the rest), and
//            A's ring and A-to-B transfers run while B still receives; else one ring.
//            The root's site with k = 1: one chain from the root, in segments of at least 64 KiB
//            (with k > 1 it takes the trees; Open MPI over the emulated das-4x2, MPI_Bcast 4 MiB
//            through the PMPI library, k = 2: 2.18 s with the trees, 3.34 s with the chain).
//   (Relaying the shares back into the root's site over its idle incoming WAN links instead
//   changed nothing in SMPI, grid-32x32 0.349 s either way, and made Open MPI over the emulated
//   das-4x2 slower.)
//   Every hop forwards a segment as soon as it has it (win segments in flight per WAN link, that
//   is per remote site; one per link inside a site, WindowedSends; an eager segment inside a
//   site counts as in flight until its receiver acknowledges it, kEagerLimit).
//   A LAN transfer through a node waits until the node is done with its WAN steps, except the
//   A-to-B transfers above, which run at half the LAN rate by construction. Why: SimGrid's CM02
//   model shares a node's link in inverse proportion to each flow's latency (TCP's RTT
//   unfairness, and its reverse "cross traffic" for the acknowledgements), so a 50 MB/s LAN
//   transfer that fills a node's link holds the 1 MB/s WAN flows beside it to a fraction; one
//   held to 25 MB/s elsewhere (its other end shares its own link with a second transfer) leaves
//   them alone (two sites of 4 nodes, a 135 KB WAN flow: 155 ms alone or beside 25 MB/s in and
//   out of its node, 209 ms beside one 50 MB/s flow, 288 ms when its node sends two).
//   Cost, shares of S = M / (C - 1) in segments of m: the WAN takes (S/m + 1)(L_w + m / B_w) with
//   win = 1 where a send completes on arrival (SimGrid; 2L_w + (S + m) / B_w when the links
//   never idle), against the bound L_w + S / B_w; then the ring allgather in a site,
//   (n - 1) (L_l + S / B_l) when C - 1 <= n, of which the groups hide about half. SMPI sends
//   under 64 KiB detached, where no window can pace them, so m >= 64 KiB there and a grid-32x32
//   share of 135 KB has two segments: three WAN rounds of 78-81 ms. grid-32x32, 4 MiB, k = 1,
//   win = 1 (SMPI, traced): the release 10 ms, the WAN 0.237 s, the in-site tail after it
//   0.052 s, the reports 10 ms: 0.309 s (one ring after the WAN: 0.089 s, 0.349 s in all).
//
// Allreduce: C shares, share j homed at site j; c(i, j, k) = the coordinator of segment k of
// share j in site i (Groups: with shares of several segments, A for the first half, B the rest).
//   1. in every site, the segment reduced along a chain ending at c(i, j, k)   in-site reduce
//   2. c(i, j, k) --WAN--> c(j, j, k), which combines the C site results      reduce-scatter
//   3. c(j, j, k) --WAN--> c(i, j, k) for every other site                    allgather
//   4. c(i, j, k) --> a chain through site i                                  in-site broadcast
//   A site's chains are rings, and every rank takes its items nearest the chain's start first:
//   steps 1 and 4 are ring reduce-scatters and allgathers. A's segments are reduced first round
//   the whole site; B's round B while A is on the WAN, each A member feeding its input to a B
//   member (so B's links, not A's, are full); step 4 mirrors the broadcast's groups: A's values
//   round A and on to B while B is on the WAN, B's round the site after it. SMPI, 4 MiB:
//   grid-32x32 0.488 s with one group, 0.421 s with two; das-8x16 1.335 / 1.243 s.
//   Cost: in a site (n - 1)/n M / B_l twice, about half of it hidden behind the WAN; on the WAN
//   2 M / (C B_w) + L_w per segment round (each link direction carries a reduce-scatter share
//   and an allgather share), against the bound L_w + 2 M / (C B_w). grid-32x32 (traced): A's
//   ring reduce 45 ms, the WAN 0.315 s (rounds of 85, 148 and 85 ms), B's ring after it 45 ms.
//   Commutative operations only (sites combine in site order, not rank order).
//
// Shares: in proportion to each share's slowest WAN link where the Topology's pair links differ
// (an explicit WAN: site_bandwidths, bcast_share_weights, allreduce_share_weights; shares=equal
// turns it off), else equal.
#include "../core/builders.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "gridcoll/algorithms/tree.hpp"
#include "sites.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>

namespace gridcoll::detail {

namespace {

// Segments in flight per link: `wan` (method key win, default 2) between sites, one inside a
// site. On a real WAN an MPI send of a 64 KiB segment completes only after the receiver's
// acknowledgement, so one in flight idles each link for a round trip per segment: Open MPI
// across the emulated das-4x2 (10 ms, 1 MB/s), 4 MiB, 64 KiB segments: allreduce 3.49 s with
// one, 2.75 s with two; broadcast 2.22 s / 2.08 s. SimGrid instead shares a link fairly between
// the messages on it, so there a second one delays the first (both arrive at the end): SMPI
// grid-32x32 broadcast 4 MiB, k = 1, 0.309 s with win=1, 0.448 s with win=2. Inside a site a
// round trip is tiny against a segment's transfer, so one is enough there.
constexpr int kSiteInFlight = 1;

// A message under MPI's eager limit (kEagerLimit) completes at once, so a window that waits for
// its send paces nothing. Inside a site such a message is acknowledged (site_recv), and the
// window waits for that: without it, segments held back by a gate all left at once and crossed
// each hop together (grid-32x32, 1 MiB, shares of 33 KB: 0.368 s without, 0.135 s with).
bool eager(std::uint64_t bytes) { return bytes > 0 && bytes < kEagerLimit; }

// With `acks`, eager messages inside the site are acknowledged (site_recv). Only where a link's
// data runs one way (chains, and rings of three or more): the acknowledgements share the reverse
// link's FIFO, and its own data, taken in another order at its two ends, would cross them.
WindowedSends site_windows(Schedule& s, const Sites& sites, int my_site, int wan, bool acks) {
    const auto site = [&sites](int peer) { return sites.site_of[static_cast<std::size_t>(peer)]; };
    return WindowedSends(
        s, [site, my_site, wan](int peer) { return site(peer) == my_site ? kSiteInFlight : wan; },
        [site, my_site](int peer) { return site(peer) == my_site ? peer : -1 - site(peer); },
        [site, my_site, acks](int peer, std::uint64_t bytes) { return acks && site(peer) == my_site && eager(bytes); });
}

// A receive from a member of my site, acknowledged as site_windows(..., acks) expects.
StepId site_recv(Schedule& s, bool acks, int peer, Span x, std::initializer_list<StepId> deps = {}) {
    return acks && eager(x.len) ? recv_acked(s, peer, x, deps) : s.recv(peer, x, deps);
}

// A chain through `ranks` that starts at index `start` (cyclically): position of `me` in it
// and its neighbours.
struct ChainPos {
    int offset = -1;  // -1: not in the chain
    int prev = -1, next = -1;
};
ChainPos chain_pos(const std::vector<int>& ranks, int start, int my_index) {
    ChainPos p;
    const int n = static_cast<int>(ranks.size());
    if (my_index < 0 || n == 0) return p;
    p.offset = (my_index - start + n) % n;
    if (p.offset > 0) p.prev = ranks[static_cast<std::size_t>((my_index - 1 + n) % n)];
    if (p.offset < n - 1) p.next = ranks[static_cast<std::size_t>((my_index + 1) % n)];
    return p;
}

int index_in(const std::vector<int>& v, int x) {
    const auto it = std::lower_bound(v.begin(), v.end(), x);
    return it != v.end() && *it == x ? static_cast<int>(it - v.begin()) : -1;
}

// The segment size for a share of `len` bytes: at least `seg`, evened out so that no short last
// segment pays a whole WAN latency of its own (a 135 KB share in 64 KiB segments would be 64 K,
// 64 K and 4 K; evened out, two of 66 K). Never below `seg`: under it a send can change protocol
// (SMPI sends under 64 KiB detached, so the WAN window no longer holds them back, and all of a
// share's segments shared the link: das-8x16, 16 MiB, 37 segments of 63.3 KiB took 8.75 s, 36
// of 65.0 KiB 3.23 s).
// Whole elements of `elem` bytes; 0 keeps it whole.
std::uint64_t even_segment(std::uint64_t len, std::uint64_t seg, std::uint64_t elem) {
    if (seg == 0 || len <= seg) return seg;
    const std::uint64_t count = len / seg;
    const std::uint64_t elems = (len / elem + count - 1) / count;
    return elems * elem;
}

// Zero bytes: the "ready" messages, and a step that joins others.
const Span kNothing{Buf::Out, 0, 0};

// One step that completes when all of `steps` have (a zero-byte copy); kNoStep for none.
StepId join(Schedule& s, const std::vector<StepId>& steps) {
    return steps.empty() ? kNoStep : s.add(Step{Op::Copy, Order::DstLeft, -1, kNothing, kNothing}, steps);
}

// "Ready" messages that keep a LAN transfer off a node while it uses the WAN (the header says
// why): a zero-byte send to each of `tell` after step `after`, and the receive of one from each
// of `hear`, whose step `from(peer)` returns.
class Ready {
public:
    Ready(Schedule& s, const std::vector<int>& tell, StepId after, const std::vector<int>& hear) {
        for (int p : tell) s.send(p, kNothing, {after});
        for (int p : hear) got_.emplace_back(p, s.recv(p, kNothing));
    }
    StepId from(int peer) const {
        for (const auto& [p, id] : got_)
            if (p == peer) return id;
        return kNoStep;
    }

private:
    std::vector<std::pair<int, StepId>> got_;
};

void add_unique(std::vector<int>& v, int x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// The allreduce's: share j comes into site j over every other site's link to it and leaves
// over its links to them, so it flows at the smallest bandwidth of site j's links.
std::vector<double> allreduce_share_weights(const std::vector<std::vector<double>>& b) {
    if (b.empty()) return {};
    std::vector<double> w;
    for (std::size_t j = 0; j < b.size(); ++j) {
        double least = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < b.size(); ++i)
            if (i != j) least = std::min({least, b[i][j], b[j][i]});
        w.push_back(least);
    }
    return unless_equal(std::move(w));
}

// A site's two groups, when split: A, the even site indices, and B, the odd ones. Of a share's
// `rounds` segments, A takes the first half and B the rest; a segment enters and leaves the site
// through the (j mod size)-th member of its group. The groups take turns on the WAN, so one can
// work inside the site while the other receives (site_rings). Unsplit (shares of one segment, or
// a site of one), A is the whole site and B is empty.
struct Groups {
    std::vector<int> a, b;  // ranks, in site order
    Groups(const std::vector<int>& site, std::uint64_t rounds) : first_b_((rounds + 1) / 2) {
        for (std::size_t i = 0; i < site.size(); ++i) (rounds > 1 && i % 2 == 1 ? b : a).push_back(site[i]);
    }
    bool in_b(std::uint64_t k) const { return !b.empty() && k >= first_b_; }
    int coordinator(int j, std::uint64_t k) const {
        const std::vector<int>& g = in_b(k) ? b : a;
        return g[static_cast<std::size_t>(j) % g.size()];
    }
    // Site index i: in B?, its place in its group, and (for an A member) its B partner's index
    // or -1.
    bool index_in_b(int i) const { return !b.empty() && i % 2 == 1; }
    int place(int i) const { return b.empty() ? i : i / 2; }
    int partner(int i) const {
        return !index_in_b(i) && !b.empty() && i + 1 < static_cast<int>(a.size() + b.size()) ? i + 1 : -1;
    }

private:
    std::uint64_t first_b_;
};

// The "ready" messages of a site in groups (site_rings, and the allreduce's phase 4): round
// the whole site once my WAN steps are done (when there is a B), and round A once A's are.
struct GroupReady {
    std::optional<Ready> site, a;
};
GroupReady group_ready(Schedule& s, const std::vector<int>& mine, int my_index, const Groups& g, StepId a_done,
                       StepId wan_done) {
    GroupReady r;
    const int n = static_cast<int>(mine.size());
    if (!g.b.empty())
        r.site.emplace(s, std::vector<int>{mine[static_cast<std::size_t>((my_index - 1 + n) % n)]}, wan_done,
                       std::vector<int>{mine[static_cast<std::size_t>((my_index + 1) % n)]});
    const int na = static_cast<int>(g.a.size()), place = g.place(my_index);
    if (!g.index_in_b(my_index) && na > 1)
        r.a.emplace(s, std::vector<int>{g.a[static_cast<std::size_t>((place - 1 + na) % na)]}, a_done,
                    std::vector<int>{g.a[static_cast<std::size_t>((place + 1) % na)]});
    return r;
}

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

}  // namespace

Schedule bcast_multitree(const Request& r) {
    Schedule s(r.rank, r.size);
    const Sites sites = sites_at(*r.topology, r.params.cluster_level);
    const int C = sites.count();
    const int root_site = sites.site_of[static_cast<std::size_t>(r.root)];
    const int my_site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(my_site)];
    const int my_index = index_in(mine, r.rank);
    const bool rings = r.params.fanout == 1;
    // Non-root sites in order: share j's home is home[j].
    std::vector<int> home;
    for (int i = 0; i < C; ++i)
        if (i != root_site) home.push_back(i);
    Pieces p;
    p.shares = std::max(1, C - 1);
    const Shares shares(r.bytes, p.shares, 1,
                        r.params.equal_shares ? std::vector<double>{}
                                              : bcast_share_weights(site_bandwidths(*r.topology, sites, r.params.cluster_level),
                                                                    root_site, home));
    const std::uint64_t seg = even_segment(shares.each, r.params.segment, 1);
    for (int j = 0; j < p.shares; ++j) p.rounds = std::max(p.rounds, Segments(shares.length(j), seg).count());
    p.segment = [&shares, seg](int j, std::uint64_t k) -> std::optional<Span> {
        const Segments segs(shares.length(j), seg);
        if (k >= segs.count()) return std::nullopt;
        return segs.span(Buf::Out, k, shares.offset(j));
    };
    // Who holds segment k of share j in a site after the WAN phase: the root in its site; else
    // the (j mod size)-th of the segment's group: with k = 1 and shares of two segments the two
    // groups of site_rings, else one (member j mod n).
    std::vector<Groups> groups;
    for (int i = 0; i < C; ++i)
        groups.emplace_back(sites.members[static_cast<std::size_t>(i)], rings && i != root_site ? p.rounds : 1);
    const auto holder = [&](int site, int j, std::uint64_t k) {
        return site == root_site ? r.root : groups[static_cast<std::size_t>(site)].coordinator(j, k);
    };
    p.holder = [&holder, my_site](int j, std::uint64_t k) { return holder(my_site, j, k); };
    // WAN windows count the messages to one site, whichever member they go to. Acknowledged
    // eager messages in my site: the root's chain, and rings whose groups have three or more.
    const bool acks = rings && (my_site == root_site || mine.size() >= 6);
    WindowedSends out = site_windows(s, sites, my_site, r.params.wan_window, acks);

    // Phase 1, the WAN: segment k of share j from the root to its holder in the share's home
    // site, relayed from there to its holders in the other sites. (Acknowledging the eager ones,
    // so that a sender's in-site transfers wait until its WAN data has arrived, made grid-32x32
    // slower: 1 MiB 0.143 s with, 0.135 s without; 256 KiB 0.086 / 0.065 s.)
    p.got.assign(static_cast<std::size_t>(p.shares), std::vector<StepId>(p.rounds, kNoStep));
    for (std::uint64_t k = 0; k < p.rounds && !home.empty(); ++k) {
        std::vector<StepId>& wan = groups[static_cast<std::size_t>(my_site)].in_b(k) ? p.wan_b : p.wan_a;
        for (int j = 0; j < p.shares; ++j) {
            const auto x = p.segment(j, k);
            if (!x) continue;
            const int h = home[static_cast<std::size_t>(j)];
            if (r.rank == r.root) {
                wan.push_back(out.send(holder(h, j, k), *x, {}));
            } else if (r.rank == holder(h, j, k)) {
                const StepId g = p.got[static_cast<std::size_t>(j)][k] = s.recv(r.root, *x);
                wan.push_back(g);
                for (int i : home)
                    if (i != h) wan.push_back(out.send(holder(i, j, k), *x, {g}));
            } else if (my_site != root_site && r.rank == holder(my_site, j, k)) {
                wan.push_back(p.got[static_cast<std::size_t>(j)][k] = s.recv(holder(h, j, k), *x));
            }
        }
    }

    // Phase 2, inside each site. The root's site with k = 1: one chain from the root through the
    // site, in segments of at least the eager limit, once the root is done with the WAN. (Its shares'
    // own segments can be smaller: eagerly sent, they all crossed each hop together and the chain
    // stopped pipelining: grid-32x32, 1 MiB, shares of 33 KB, 0.651 s, 0.368 s with this chain.)
    if (rings && my_site == root_site) {
        const StepId wan_done = p.wan_done(s);
        const ChainPos pos = chain_pos(mine, index_in(mine, r.root), my_index);
        const Segments segs(r.bytes, r.params.segment == 0 ? 0 : even_segment(r.bytes, std::max(r.params.segment, kEagerLimit), 1));
        for (std::uint64_t k = 0; k < segs.count(); ++k) {
            const Span x = segs.span(Buf::Out, k);
            const StepId got = pos.prev >= 0 ? site_recv(s, true, pos.prev, x) : kNoStep;
            if (pos.next >= 0) out.send(pos.next, x, {got, wan_done});
        }
    } else if (rings)
        site_rings(s, out, p, mine, my_index, groups[static_cast<std::size_t>(my_site)], acks);
    else
        site_trees(s, out, p, mine, my_index, r.params.fanout);
    return s;
}

Schedule allreduce_multitree(const Request& r) {
    Schedule s(r.rank, r.size);
    const Sites sites = sites_at(*r.topology, r.params.cluster_level);
    const int C = sites.count();
    const int my_site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(my_site)];
    const int n = static_cast<int>(mine.size());
    const int my_index = index_in(mine, r.rank);
    const Shares shares(r.bytes, C, r.elem,
                        r.params.equal_shares || C < 2
                            ? std::vector<double>{}
                            : allreduce_share_weights(site_bandwidths(*r.topology, sites, r.params.cluster_level)));
    struct Item {
        int j;
        std::uint64_t k;
        Span x;
        StepId last_send_from_out = kNoStep;  // the WAR guard for the final value's arrival in Out
        StepId result = kNoStep;              // at the home coordinator: the share's value
        StepId value = kNoStep;               // at a coordinator: the step that brings the value
    };
    std::vector<Item> items;
    std::uint64_t rounds = 0;
    const std::uint64_t seg = even_segment(shares.each, r.params.segment, r.elem);
    for (int j = 0; j < C; ++j) rounds = std::max(rounds, Segments(shares.length(j), seg, r.elem).count());
    for (std::uint64_t k = 0; k < rounds; ++k)
        for (int j = 0; j < C; ++j) {
            const Segments segs(shares.length(j), seg, r.elem);
            if (k < segs.count()) items.push_back({j, k, segs.span(Buf::Out, k, shares.offset(j))});
        }
    // Segment k of share j enters and leaves site i through coord(i, j, k) (Groups: two groups
    // when shares have several segments).
    std::vector<Groups> groups;
    for (const auto& m : sites.members) groups.emplace_back(m, rounds);
    const Groups& g = groups[static_cast<std::size_t>(my_site)];
    const auto coord = [&](int site, int j, std::uint64_t k) {
        return groups[static_cast<std::size_t>(site)].coordinator(j, k);
    };
    const bool in_a = !g.index_in_b(my_index);
    const int my_place = g.place(my_index);
    // The A members that feed me their inputs of B's segments (phase 1): my A partner, and the
    // last A member when it has no partner of its own; the one I feed.
    std::vector<int> feeders;
    int feed_to = -1;
    if (!in_a) {
        feeders.push_back(mine[static_cast<std::size_t>(my_index - 1)]);
        if (n % 2 == 1 && my_index == n - 2) feeders.push_back(mine[static_cast<std::size_t>(n - 1)]);
    } else if (!g.b.empty()) {
        feed_to = mine[static_cast<std::size_t>(my_index + 1 < n ? my_index + 1 : my_index - 1)];
    }
    // Scratch: [0, M) a chain's incoming partials, then a slot of M per feeder (at the offsets
    // of the data); then, at a share's home coordinator, one slot per other site.
    const std::uint64_t homes_at = r.bytes * (1 + feeders.size());
    s.need_tmp(homes_at + static_cast<std::uint64_t>(C - 1) * shares.each);
    const bool acks = n >= 6;  // rings of three or more in both groups (site_windows)
    WindowedSends out = site_windows(s, sites, my_site, r.params.wan_window, acks);

    // My items of one group, by the place in their chains of `place(item)`, then by where they
    // lie in the message: the chains of a ring all run the same way, so this is the ring
    // reduce-scatter and allgather order, and the two ends of a link order their messages alike.
    const auto sorted = [&](bool group_b, const auto& place) {
        std::vector<std::tuple<int, std::uint64_t, std::size_t>> keys;
        for (std::size_t i = 0; i < items.size(); ++i)
            if (g.in_b(items[i].k) == group_b) keys.emplace_back(place(items[i]), items[i].x.off, i);
        std::sort(keys.begin(), keys.end());
        std::vector<Item*> v;
        for (const auto& key : keys) v.push_back(&items[std::get<2>(key)]);
        return v;
    };
    const auto site_index = [&](const Item& it) { return index_in(mine, coord(my_site, it.j, it.k)); };
    const auto group_place = [&](const Item& it) { return g.place(site_index(it)); };

    // Phases 1 and 2 for every item, then 3 and 4: a link's FIFO never holds a broadcast
    // message in front of a reduction message that the broadcast waits for.
    std::vector<StepId> wan_a, wan;  // my WAN steps: for A's segments, all
    const auto wan_step = [&](const Item& it, StepId id) {
        wan.push_back(id);
        if (!g.in_b(it.k)) wan_a.push_back(id);
        return id;
    };
    // The end of phase 1 at the coordinator: phase 2, to the share's home or combining there.
    const auto reduce_scatter = [&](Item& it, StepId acc) {
        if (my_site != it.j) {
            it.last_send_from_out = wan_step(it, out.send(coord(it.j, it.j, it.k), it.x, {acc}));
            return;
        }
        int slot = 0;
        for (int i = 0; i < C; ++i) {
            if (i == it.j) continue;
            const Span part{Buf::Tmp, homes_at + static_cast<std::uint64_t>(slot++) * shares.each +
                                          (it.x.off - shares.offset(it.j)), it.x.len};
            const StepId got = wan_step(it, s.recv(coord(i, it.j, it.k), part));
            acc = s.reduce(part, it.x, Order::DstLeft, {got, acc});
        }
        it.result = acc;
    };
    // One hop of a reduce chain: my input, the feeders', the partial from `prev`; then on to
    // `next`, or this is the coordinator.
    const auto reduce_hop = [&](Item& it, const ChainPos& pos, const std::vector<StepId>& fed) {
        const Span in{Buf::In, it.x.off, it.x.len};
        if (pos.prev < 0 && fed.empty() && pos.next >= 0) {
            out.send(pos.next, in, {});  // a chain's first rank forwards its own input
            return;
        }
        StepId acc = s.copy(in, it.x);
        for (std::size_t f = 0; f < fed.size(); ++f) {
            const Span part{Buf::Tmp, r.bytes * (1 + f) + it.x.off, it.x.len};
            acc = s.reduce(part, it.x, Order::DstLeft, {fed[f], acc});
        }
        if (pos.prev >= 0) {
            const Span tmp{Buf::Tmp, it.x.off, it.x.len};
            acc = s.reduce(tmp, it.x, Order::DstLeft, {site_recv(s, acks, pos.prev, tmp), acc});
        }
        if (pos.next >= 0)
            it.last_send_from_out = out.send(pos.next, it.x, {acc});
        else
            reduce_scatter(it, acc);
    };
    // Phase 1, A's segments: a chain through the whole site that ends at the coordinator.
    const auto site_chain_offset = [&](const Item& it, int after) {
        return chain_pos(mine, (site_index(it) + after) % n, my_index).offset;
    };
    for (Item* it : sorted(false, [&](const Item& i) { return site_chain_offset(i, 1); }))
        reduce_hop(*it, chain_pos(mine, (site_index(*it) + 1) % n, my_index), {});
    // Phase 1, B's segments: a chain through B that ends at the coordinator, into which every A
    // member feeds its input at the B member after it (the last A member of an odd-sized site at
    // the one before it). This runs while A sends its segments over the WAN: a B member receives
    // the feed and its chain predecessor's partial at once, so each takes half its link and A's
    // link never fills (see site_rings). The feeds follow the B member's chain order.
    if (!g.b.empty()) {
        const int nb = static_cast<int>(g.b.size());
        const auto b_chain = [&](const Item& it, int place) {
            return chain_pos(g.b, (group_place(it) + 1) % nb, place);
        };
        const int fed_place = in_a ? g.place(index_in(mine, feed_to)) : my_place;
        for (Item* it : sorted(true, [&](const Item& i) { return b_chain(i, fed_place).offset; })) {
            if (in_a) {
                out.send(feed_to, Span{Buf::In, it->x.off, it->x.len}, {});
                continue;
            }
            std::vector<StepId> fed;
            for (std::size_t f = 0; f < feeders.size(); ++f)
                fed.push_back(site_recv(s, acks, feeders[f], Span{Buf::Tmp, r.bytes * (1 + f) + it->x.off, it->x.len}));
            reduce_hop(*it, b_chain(*it, my_place), fed);
        }
    }
    // Phase 3, the WAN allgather, at the coordinators.
    for (Item& it : items) {
        if (coord(my_site, it.j, it.k) != r.rank) continue;
        if (my_site == it.j) {
            it.value = it.result;
            for (int i = 0; i < C; ++i)
                if (i != it.j) wan_step(it, out.send(coord(i, it.j, it.k), it.x, {it.value}));
        } else {
            it.value = wan_step(it, s.recv(coord(it.j, it.j, it.k), it.x, {it.last_send_from_out}));
        }
    }
    // Phase 4, the in-site broadcast, as the k = 1 broadcast's phase 2 (site_rings): A's
    // segments round A from the coordinator and from every A member to its B partner, once A
    // is done with their WAN steps, while B still receives its own; B's segments round the
    // whole site, once both ends of a link are done with the WAN.
    const StepId a_done = join(s, wan_a), wan_done = join(s, wan);
    const GroupReady ready = group_ready(s, mine, my_index, g, a_done, wan_done);
    const auto a_chain = [&](const Item& it, int place) { return chain_pos(g.a, group_place(it), place); };
    const int partner = g.partner(my_index) >= 0 ? mine[static_cast<std::size_t>(g.partner(my_index))] : -1;
    if (in_a) {
        for (Item* it : sorted(false, [&](const Item& i) { return a_chain(i, my_place).offset; })) {
            const ChainPos pos = a_chain(*it, my_place);
            const StepId got = pos.prev >= 0 ? site_recv(s, acks, pos.prev, it->x, {it->last_send_from_out}) : it->value;
            if (pos.next >= 0) out.send(pos.next, it->x, {got, a_done, ready.a->from(pos.next)});
            if (partner >= 0) out.send(partner, it->x, {got, a_done});
        }
    } else {
        for (Item* it : sorted(false, [&](const Item& i) { return a_chain(i, my_place).offset; }))
            site_recv(s, acks, mine[static_cast<std::size_t>(my_index - 1)], it->x, {it->last_send_from_out});
    }
    const auto ring = [&](const Item& it) { return chain_pos(mine, site_index(it), my_index); };
    for (Item* it : sorted(true, [&](const Item& i) { return ring(i).offset; })) {
        const ChainPos pos = ring(*it);
        const StepId got = pos.prev >= 0 ? site_recv(s, acks, pos.prev, it->x, {it->last_send_from_out}) : it->value;
        if (pos.next >= 0) out.send(pos.next, it->x, {got, wan_done, ready.site->from(pos.next)});
    }
    return s;
}

}  // namespace gridcoll::detail
