// Multi-tree WAN-parallel broadcast and allreduce (gridcoll's own; beyond papers 000/001, after
// the bandwidth bounds in ../shared/DESIGN.md). On a WAN where every site has a link to every
// other (mesh, or a star with a fast core), one tree uses one link per site at a time; these
// send a different share of the message along each of C - 1 two-hop trees at once, so every WAN
// link carries data at the same time. Sites are the clusters of Topology level `level`
// (default 1); a site's members take turns as coordinators (share j enters and leaves site i
// through member j mod n_i), so several coordinators per site share the WAN traffic.
//
// Broadcast: the message is cut into C - 1 shares, one per non-root site ("home" site), in two
// phases.
//   1. WAN:  share j: root --WAN--> h_j = the holder of share j in its home site
//            h_j --WAN--> the holder of share j in every other non-root site
//   2. site: share j down a k-ary tree through each site from its holder, in the share's own
//            order (SiteOrders), in segments; with k = 1 the chains form one ring per site,
//            served nearest-first: the ring allgather.
//   Share j is held by member j mod n of a site, and by the root in its own site. (Relaying the
//   shares back into the root's site over its idle incoming WAN links instead changed nothing in
//   SMPI, grid-32x32 0.349 s either way, and made Open MPI over the emulated das-4x2 slower.)
//   A link inside a site carries phase 2 only once both its ends are done with phase 1 (each node
//   sends a zero-byte "ready" to its tree parents). Why: SimGrid's CM02 model shares a node's
//   link in inverse proportion to each flow's latency (TCP's RTT unfairness, and its reverse
//   "cross traffic" for the acknowledgements), so a 50 MB/s LAN transfer through a node holds
//   the 1 MB/s WAN flows beside it to about 0.1 MB/s (traced on 8 sites x 2 nodes: a 64 KiB WAN
//   segment took 133 ms instead of 75 ms). Overlapping the phases made grid-32x32 slower (4 MiB,
//   k = 2: 0.567 s overlapped, 0.478 s in phases).
//   Every hop forwards segment k of a share as soon as it has it (win segments in flight per WAN
//   link, one per link inside a site, WindowedSends).
//   Cost, shares of S = M / (C - 1) in segments of m: the WAN takes (S/m + 1)(L_w + m / B_w) with
//   win = 1 where a send completes on arrival (SimGrid; 2L_w + (S + m) / B_w when the links
//   never idle), against the bound L_w + S / B_w; then the ring allgather in a site,
//   (n - 1) (L_l + S / B_l) when C - 1 <= n. grid-32x32, 4 MiB, k = 1, win = 1 (SMPI, traced): the
//   WAN 0.250 s (3 x 78 ms and the start), the ring 0.089 s; 0.349 s in all.
//
// Allreduce: C shares, share j homed at site j; c(i, j) = member j mod n of site i.
//   1. in every site, share j reduced along a chain ending at c(i, j)       in-site reduce
//   2. c(i, j) --WAN--> c(j, j), which combines the C site results          reduce-scatter
//   3. c(j, j) --WAN--> c(i, j) for every other site                         allgather
//   4. c(i, j) --> chain through site i                                     in-site broadcast
//   A site's chains are one ring, and every rank takes its items nearest the chain's start
//   first: steps 1 and 4 are the ring reduce-scatter and allgather. Step 4 waits, as the
//   broadcast's phase 2, until both ends of a link are done with the WAN (SMPI, 4 MiB, win=1:
//   grid-32x32 0.512 s overlapped, 0.498 s gated; 32 sites x 4: 0.541 / 0.468 s); before the
//   ring order, overlapped chains took 0.644 s there. Step 1 ends before the WAN starts anyway.
//   Cost: in a site (n - 1)/n M / B_l twice; on the WAN 2 M / (C B_w) + L_w per segment round
//   (each link direction carries a reduce-scatter share and an allgather share), against the
//   bound L_w + 2 M / (C B_w). grid-32x32 (traced, win=2): the ring reduce-scatter 0.098 s, the
//   WAN 0.292 s, the ring allgather 0.090 s. Commutative operations only (sites combine in site
//   order, not rank order).
//
// Not done: shares in proportion to each link's bandwidth (the Topology gives one bandwidth per
// level, so shares are equal).
#include "../core/builders.hpp"
#include "gridcoll/segments.hpp"
#include "gridcoll/topology.hpp"
#include "gridcoll/tree.hpp"
#include "sites.hpp"

#include <algorithm>
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
// grid-32x32 broadcast 4 MiB, k = 1, 0.349 s with win=1, 0.400 s with win=2. Inside a site a
// round trip is tiny against a segment's transfer, so one is enough there.
constexpr int kSiteInFlight = 1;

WindowedSends site_windows(Schedule& s, const Sites& sites, int my_site, int wan) {
    return WindowedSends(s, [&sites, my_site, wan](int peer) {
        return sites.site_of[static_cast<std::size_t>(peer)] == my_site ? kSiteInFlight : wan;
    });
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

// Equal shares of `bytes` in whole elements; share j is [offset(j), offset(j) + length(j)).
struct Shares {
    std::uint64_t bytes, each;
    int count;
    Shares(std::uint64_t total, int n, std::uint64_t elem) : bytes(total), count(n) {
        const std::uint64_t elems = total / elem;
        each = (elems + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n) * elem;
    }
    std::uint64_t offset(int j) const { return std::min(bytes, each * static_cast<std::uint64_t>(j)); }
    std::uint64_t length(int j) const { return std::min(bytes, offset(j) + each) - offset(j); }
};

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

}  // namespace

Schedule bcast_multitree(const Request& r) {
    Schedule s(r.rank, r.size);
    const Sites sites = sites_at(*r.topology, r.params.cluster_level);
    const int C = sites.count();
    const int root_site = sites.site_of[static_cast<std::size_t>(r.root)];
    const int my_site = sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(my_site)];
    const int n = static_cast<int>(mine.size());
    const int my_index = index_in(mine, r.rank);
    // Non-root sites in order: share j's home is home[j].
    std::vector<int> home;
    for (int i = 0; i < C; ++i)
        if (i != root_site) home.push_back(i);
    const int K = std::max(1, C - 1);
    // Who holds share j in a site after the WAN phase: the root in its site, member j mod n_i elsewhere.
    const auto holder = [&](int site, int j) {
        if (site == root_site) return r.root;
        const std::vector<int>& m = sites.members[static_cast<std::size_t>(site)];
        return m[static_cast<std::size_t>(j) % m.size()];
    };
    const Shares shares(r.bytes, K, 1);
    WindowedSends out = site_windows(s, sites, my_site, r.params.wan_window);
    std::uint64_t rounds = 0;
    const std::uint64_t seg = even_segment(shares.each, r.params.segment, 1);
    for (int j = 0; j < K; ++j) rounds = std::max(rounds, Segments(shares.length(j), seg).count());
    const auto segment = [&](int j, std::uint64_t k) -> std::optional<Span> {
        const Segments segs(shares.length(j), seg);
        if (k >= segs.count()) return std::nullopt;
        return segs.span(Buf::Out, k, shares.offset(j));
    };

    // Phase 1, the WAN: share j from the root to its home site's holder, relayed from there to
    // the holders of the other sites. got[j][k]: the step that brings segment k of share j here.
    std::vector<std::vector<StepId>> got(static_cast<std::size_t>(K), std::vector<StepId>(rounds, kNoStep));
    std::vector<StepId> wan;  // my WAN steps
    for (std::uint64_t k = 0; k < rounds && !home.empty(); ++k) {
        for (int j = 0; j < K; ++j) {
            const auto x = segment(j, k);
            if (!x) continue;
            const int h = home[static_cast<std::size_t>(j)];
            if (r.rank == r.root) {
                wan.push_back(out.send(holder(h, j), *x, {}));
            } else if (r.rank == holder(h, j)) {
                const StepId g = got[static_cast<std::size_t>(j)][k] = s.recv(r.root, *x);
                wan.push_back(g);
                for (int i : home)
                    if (i != h) wan.push_back(out.send(holder(i, j), *x, {g}));
            } else if (my_site != root_site && r.rank == holder(my_site, j)) {
                wan.push_back(got[static_cast<std::size_t>(j)][k] = s.recv(holder(h, j), *x));
            }
        }
    }

    // Phase 2, inside each site: share j down a k-ary tree (k = 1: a chain) from its holder, in
    // the share's own order (SiteOrders). It waits until both ends of a link are done with the
    // WAN: a node sends a zero-byte "ready" to each of its parents once its WAN steps are done,
    // and a parent sends to a child only after that child's ready and its own WAN steps.
    const SiteOrders orders(n, r.params.fanout);
    std::vector<SiteOrders::Place> trees;
    std::vector<int> parents, children;  // distinct, as ranks
    for (int j = 0; j < K; ++j) {
        SiteOrders::Place t = orders.tree(j, index_in(mine, holder(my_site, j)), my_index);
        if (t.node.parent >= 0) add_unique(parents, mine[static_cast<std::size_t>(t.node.parent)]);
        for (int c : t.node.children) add_unique(children, mine[static_cast<std::size_t>(c)]);
        trees.push_back(std::move(t));
    }
    const StepId wan_done = join(s, wan);
    const Ready ready(s, parents, wan_done, children);
    // Nearest the holder first, then by segment and share. A parent is one hop nearer than its
    // child in every share's tree, so the two order the messages between them alike.
    std::vector<std::tuple<int, std::uint64_t, int>> order;  // (depth, segment, share)
    for (int j = 0; j < K; ++j)
        for (std::uint64_t k = 0; k < rounds; ++k)
            if (segment(j, k)) order.emplace_back(trees[static_cast<std::size_t>(j)].depth, k, j);
    std::sort(order.begin(), order.end());
    for (const auto& [depth, k, j] : order) {
        const Span x = *segment(j, k);
        const TreeNode& t = trees[static_cast<std::size_t>(j)].node;
        StepId have = got[static_cast<std::size_t>(j)][k];
        if (t.parent >= 0) have = s.recv(mine[static_cast<std::size_t>(t.parent)], x);
        for (int c : t.children) {
            const int child = mine[static_cast<std::size_t>(c)];
            out.send(child, x, {have, wan_done, ready.from(child)});
        }
    }
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
    const auto coord = [&](int site, int j) {
        const auto& m = sites.members[static_cast<std::size_t>(site)];
        return m[static_cast<std::size_t>(j) % m.size()];
    };
    const auto c_index = [n](int j) { return j % n; };  // c(my_site, j)'s index in my site
    const Shares shares(r.bytes, C, r.elem);
    // Scratch: [0, M) the chain's incoming partials (at the offsets of the data); then, at a
    // share's home coordinator, one slot per other site.
    s.need_tmp(r.bytes + static_cast<std::uint64_t>(C - 1) * shares.each);
    WindowedSends out = site_windows(s, sites, my_site, r.params.wan_window);

    struct Item {
        int j;
        Span x;
        StepId last_send_from_out;  // the WAR guard for the final value's arrival in Out
        StepId result;              // at c(j, j): the step that completes the share's value
        StepId value = kNoStep;     // at c(i, j): the step that brings the share's value here
    };
    std::vector<Item> items;
    std::uint64_t rounds = 0;
    const std::uint64_t seg = even_segment(shares.each, r.params.segment, r.elem);
    for (int j = 0; j < C; ++j) rounds = std::max(rounds, Segments(shares.length(j), seg, r.elem).count());
    for (std::uint64_t k = 0; k < rounds; ++k)
        for (int j = 0; j < C; ++j) {
            const Segments segs(shares.length(j), seg, r.elem);
            if (k < segs.count()) items.push_back({j, segs.span(Buf::Out, k, shares.offset(j)), kNoStep, kNoStep});
        }

    // Phases 1 and 2 for every item, then 3 and 4: a link's FIFO never holds a broadcast
    // message in front of a reduction message that the broadcast waits for. Within each, a rank
    // takes the items by its place in their chains, then by where they lie in the message: the
    // chains of a site are one ring, and this is the ring reduce-scatter and allgather order, the
    // same at both ends of every link (one hop further along every chain).
    const auto by_place = [&](int first_of_chain) {
        std::vector<std::tuple<int, std::uint64_t, int, std::size_t>> keys;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const int c = c_index(items[i].j);
            keys.emplace_back(chain_pos(mine, (c + first_of_chain) % n, my_index).offset, items[i].x.off,
                              items[i].j, i);
        }
        std::sort(keys.begin(), keys.end());
        std::vector<Item*> out;
        for (const auto& key : keys) out.push_back(&items[std::get<3>(key)]);
        return out;
    };
    std::vector<StepId> wan;  // my WAN steps
    for (Item* item : by_place(1)) {
        Item& it = *item;
        const int j = it.j;
        const Span in{Buf::In, it.x.off, it.x.len}, tmp{Buf::Tmp, it.x.off, it.x.len};
        const int c = c_index(j);
        // The reduce chain starts after c and ends at c.
        const ChainPos pos = chain_pos(mine, (c + 1) % n, my_index);
        StepId acc;
        if (pos.offset == 0 && n > 1) {
            it.last_send_from_out = kNoStep;
            out.send(pos.next, in, {});
            continue;  // the chain's first rank forwards its own input
        }
        acc = s.copy(in, it.x);
        if (pos.prev >= 0) {
            const StepId got = s.recv(pos.prev, tmp);
            acc = s.reduce(tmp, it.x, Order::DstLeft, {got, acc});
        }
        if (pos.next >= 0) {
            it.last_send_from_out = out.send(pos.next, it.x, {acc});
            continue;
        }
        // This rank is c(my_site, j).
        if (my_site != j) {
            it.last_send_from_out = out.send(coord(j, j), it.x, {acc});
            wan.push_back(it.last_send_from_out);
            continue;
        }
        int slot = 0;
        for (int i = 0; i < C; ++i) {
            if (i == j) continue;
            const Span part{Buf::Tmp, r.bytes + static_cast<std::uint64_t>(slot++) * shares.each + (it.x.off - shares.offset(j)), it.x.len};
            const StepId got = s.recv(coord(i, j), part);
            wan.push_back(got);
            acc = s.reduce(part, it.x, Order::DstLeft, {got, acc});
        }
        it.result = acc;
    }
    // Phase 3, the WAN allgather, at the coordinators (c(i, j) is the first of share j's
    // broadcast chain in site i).
    const std::vector<Item*> bcast_order = by_place(0);
    for (Item* it : bcast_order) {
        const int j = it->j;
        const int c = c_index(j);
        if (chain_pos(mine, c, my_index).offset != 0) continue;
        if (my_site == j) {
            it->value = it->result;
            for (int i = 0; i < C; ++i)
                if (i != j) wan.push_back(out.send(coord(i, j), it->x, {it->value}));
        } else {
            wan.push_back(it->value = s.recv(coord(j, j), it->x, {it->last_send_from_out}));
        }
    }
    // Phase 4, the in-site broadcast chains, once both ends of a link are done with the WAN (as
    // in the broadcast; the chains form one ring, so a rank's parent is its predecessor).
    const StepId wan_done = join(s, wan);
    std::vector<int> pred, succ;
    if (n > 1) {
        pred.push_back(mine[static_cast<std::size_t>((my_index - 1 + n) % n)]);
        succ.push_back(mine[static_cast<std::size_t>((my_index + 1) % n)]);
    }
    const Ready ready(s, pred, wan_done, succ);
    for (Item* it : bcast_order) {
        const int c = c_index(it->j);
        const ChainPos pos = chain_pos(mine, c, my_index);  // the broadcast chain starts at c
        const StepId got = pos.offset > 0 ? s.recv(pos.prev, it->x, {it->last_send_from_out}) : it->value;
        if (pos.next >= 0) out.send(pos.next, it->x, {got, wan_done, ready.from(pos.next)});
    }
    return s;
}

}  // namespace gridcoll::detail
