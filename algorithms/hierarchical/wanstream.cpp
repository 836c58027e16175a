// WAN-stream broadcast (gridcoll's own; beyond papers 000/001, after the bandwidth bounds in
// ../shared/DESIGN.md): the multi-tree broadcast's C - 1 two-hop trees, with every WAN link
// carrying one stream that its receiver paces, and every node's link carrying either WAN or LAN
// traffic, never both at once. Sites are the clusters of Topology level `level` (default 1).
//
// Share j of the message (C - 1 shares, one per non-root "home" site h; in proportion to each
// share's slowest WAN link where the Topology's pair links differ, as multitree's) travels
//   root --WAN--> sink(h) --LAN--> fwd(h) --WAN--> sink(i) of every other site i
// and every sink starts a chain through its site: sink, the other members, fwd last. A site's
// sink is its first member (the root's site: the first that is not the root), its forwarder the
// second (a site of one: the sink forwards). So the root's link carries only WAN sends, a sink's
// only WAN receives in and LAN sends out, a forwarder's only LAN receives in and WAN sends out.
// Why: SimGrid's CM02 model shares a node's link in inverse proportion to each flow's latency, so
// a LAN flow beside a WAN flow on one node's link holds the WAN flow to a small fraction (see
// multitree.cpp, where that limits segments to 64 KiB and costs grid-32x32 a 52 ms tail).
//
// Streams. Each share is cut into pieces: the first of `first` bytes, then `seg` bytes each.
// Every sender posts every piece at once, as soon as it has it; the receiver keeps `win` (default
// 2) receives posted per stream and posts the next when one completes. SimGrid moves a message
// only once its receive is posted, and pays the latency L per message, so one message at a time
// leaves the link idle for L per piece, and several posted together share the link and all
// arrive at the end. With win = 2 and first = seg - L B (one byte when seg <= L B) the two
// posted pieces settle into a staggered rhythm: one crosses its latency while the other uses the
// link, so the link carries data all the time. One SMPI link of 10 ms and 1 MB/s, 135 KB in
// 10 KB pieces: 145.7 ms = L + S / B, as fast as one piece of 135 KB (145.3 ms), where one piece
// at a time would pay L per piece (14 pieces: about 0.28 s). seg defaults to L B of the link the
// share flows at (10 KB on grid-32x32), at least 8 KiB; where the Topology has no link numbers,
// 8 KiB with first = seg / 2. On a real WAN the sender's TCP connection paces the pieces in
// order, and the posted receives cost nothing.
// Where every share fits in one piece there is no stream, and the schedule is multitree's with
// k = 1 (each share enters a site through its own member and goes round a ring), faster there.
// Inside a site the chain's receiver keeps one receive posted: a piece that crosses a hop alone
// goes on at once, and the chain hop (L_l + seg / B_l, 0.22 ms for 10 KB at 50 MB/s) is well
// under the time the sink takes to receive a piece of every share. A site's chain takes the
// pieces round by round, its own share's piece first (it crosses one WAN hop, the others two).
//
// Cost, shares of S = M / (C - 1): the WAN 2 L_w + S / B_w + about 2 seg / B_w (each hop adds L_w
// and the last pieces), then the chain: the last round's pieces through the sink's link (C - 1)
// seg / B_l plus (n - 1)(L_l + seg / B_l) down the chain. Against the bound L_w + M / ((C - 1)
// B_w). SMPI grid-32x32, 4 MiB: 0.2175 s with the bench's release and reports (about 20 ms),
// against 0.1453 s; multitree 0.309 s. In a raw MPI copy of this schedule there, the WAN's first
// hop ends at 161 ms (SimGrid's reverse traffic takes 5 % of a link whose other direction also
// streams), the second at 186 ms, the chains at 198-204 ms.
// Assumes a site's members share one WAN edge (any member reaches any other site over the same
// link, as in a cluster of clusters). Gateways (paper 004, madiii): a site whose Topology names a
// gateway rank takes it as its sink (unless it is the root): every message into the site
// crosses the gateway's node anyway, so the sink saves that hop; this assumes the gateway node
// runs a rank, as the compositions' masters do (compose.hpp). The forwarder is then the first
// other member, whose WAN sends also pass the gateway: the gateway's link carries the site's
// WAN traffic both ways, which it does on such a platform whatever the schedule.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../core/builders.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

// The least default piece: on a fast WAN L B is small (eco-cmu: 500 bytes), and a piece pays a
// message's overheads whatever its size.
constexpr std::uint64_t kLeast = 8 * 1024;

// The WAN between the sites of `level`: its latency, and the bandwidth of its slowest link (the
// level link above them, else its pair links); zeros when unknown.
LevelLink wan_link(const Topology& t, int level) {
    const int wan = site_level(t, level) - 1;
    if (wan < 0) return {};
    if (const auto l = t.link(wan); l && l->bandwidth_Bps > 0) return *l;
    LevelLink least;
    for (const auto& [a, b, l] : t.pair_links(wan))
        if (l.bandwidth_Bps > 0 && (least.bandwidth_Bps == 0 || l.bandwidth_Bps < least.bandwidth_Bps)) least = l;
    return least;
}

// [off, off + len) cut into a first piece of `first` bytes, then pieces of `seg`, the last two
// of seg / 2 and seg / 4 when there are enough: the last pieces cross the second WAN hop and the
// sink's link after everything else, so smaller ones end sooner.
std::vector<Span> cut(std::uint64_t off, std::uint64_t len, std::uint64_t first, std::uint64_t seg) {
    std::vector<Span> v;
    const std::uint64_t tail = seg >= 4 && len > first + 2 * seg ? seg / 2 + seg / 4 : 0;
    for (std::uint64_t at = 0; at < len - tail;) {
        const std::uint64_t n = std::min(len - tail - at, v.empty() ? first : seg);
        v.push_back(Span{Buf::Out, off + at, n});
        at += n;
    }
    if (tail) {
        v.push_back(Span{Buf::Out, off + len - tail, seg / 2});
        v.push_back(Span{Buf::Out, off + len - seg / 4, seg / 4});
    }
    return v;
}

// The roles in one site: the sink (-1: none, the root's site when the root is alone in it),
// the forwarder (-1 in the root's site), and the chain from the sink through the site.
struct SiteRoles {
    int sink = -1, fwd = -1;
    std::vector<int> chain;
};

SiteRoles roles(const std::vector<int>& members, int root, bool root_site, int gateway) {
    SiteRoles s;
    if (gateway >= 0 && gateway != root) s.sink = gateway;
    for (int m : members)
        if (m != root) {
            if (s.sink < 0)
                s.sink = m;
            else if (s.fwd < 0 && !root_site && m != s.sink)
                s.fwd = m;
        }
    if (!root_site && s.fwd < 0) s.fwd = s.sink;  // a site of one
    if (s.sink < 0) return s;
    s.chain.push_back(s.sink);
    for (int m : members)
        if (m != root && m != s.sink && m != s.fwd) s.chain.push_back(m);
    if (s.fwd >= 0 && s.fwd != s.sink) s.chain.push_back(s.fwd);
    return s;
}

}  // namespace

Schedule bcast_wanstream(const Request& r) {
    using std::size_t;
    Schedule s(r.rank, r.size);
    const Sites sites = sites_at(*r.topology, r.params.cluster_level);
    const int C = sites.count();
    const int root_site = sites.site_of[static_cast<size_t>(r.root)];
    const int my_site = sites.site_of[static_cast<size_t>(r.rank)];
    std::vector<int> home;  // share j's home site
    for (int i = 0; i < C; ++i)
        if (i != root_site) home.push_back(i);
    std::vector<SiteRoles> site;
    const int level = site_level(*r.topology, r.params.cluster_level);
    for (int i = 0; i < C; ++i) {
        const std::vector<int>& members = sites.members[static_cast<size_t>(i)];
        site.push_back(roles(members, r.root, i == root_site, r.topology->gateway(members.front(), level)));
    }
    const SiteRoles& mine = site[static_cast<size_t>(my_site)];
    const auto sink_of = [&site](int i) { return site[static_cast<size_t>(i)].sink; };

    // Shares: equal, or in proportion to each share's slowest WAN link where the links differ
    // (as multitree's; shares=equal turns it off). Pieces: piece[j][k] of share j, in L B of the
    // link it flows at (one site: one share, the whole message).
    const std::vector<double> weights =
        r.params.equal_shares
            ? std::vector<double>{}
            : bcast_share_weights(site_bandwidths(*r.topology, sites, r.params.cluster_level), root_site, home);
    const size_t shares = home.empty() ? 1 : home.size();
    const Shares share(r.bytes, static_cast<int>(shares), 1, weights);
    const LevelLink wan = wan_link(*r.topology, r.params.cluster_level);
    std::vector<std::vector<Span>> piece;
    std::vector<bool> share_fits;
    size_t rounds = 0;
    for (size_t j = 0; j < shares; ++j) {
        const double bdp = wan.latency_s * (weights.empty() ? wan.bandwidth_Bps : weights[j]);
        const auto bdp_bytes = static_cast<std::uint64_t>(bdp);
        const std::uint64_t seg = std::max<std::uint64_t>(
            1, r.params.segment ? r.params.segment
                                : std::max<std::uint64_t>(kLeast, static_cast<std::uint64_t>(std::ceil(bdp))));
        const std::uint64_t first = bdp <= 0          ? std::max<std::uint64_t>(1, seg / 2)
                                    : seg > bdp_bytes ? seg - bdp_bytes
                                                      : 1;
        share_fits.push_back(share.length(static_cast<int>(j)) <= seg);
        piece.push_back(cut(share.offset(static_cast<int>(j)), share.length(static_cast<int>(j)), first, seg));
        rounds = std::max(rounds, piece.back().size());
    }
    // Shares that fit in one piece each have no stream to pace, and a sink that passes all of them
    // down one chain is slower than a share entering each site through its own member and going
    // round a ring: then this is multitree:k=1:seg=64K:win=1 (grid-32x32, 256 KiB: 70.2 ms as a stream,
    // 65.0 ms as multitree; 512 KiB, two pieces a share: 83.8 / 87.7 ms).
    if (!home.empty() && std::all_of(share_fits.begin(), share_fits.end(), [](bool b) { return b; })) {
        Request one = r;
        one.params.fanout = 1;
        one.params.wan_window = 1;
        one.params.segment = kEagerLimit;
        return bcast_multitree(one);
    }
    // My site's own share (its home), or none (the root's site; one site).
    const auto own_it = std::find(home.begin(), home.end(), my_site);
    const int own = own_it == home.end() ? -1 : static_cast<int>(own_it - home.begin());
    const std::vector<Span>* own_pieces = own >= 0 ? &piece[static_cast<size_t>(own)] : nullptr;
    // got[j][k]: the step after which I hold piece (j, k); kNoStep: from the start (the root).
    std::vector<std::vector<StepId>> got(shares);
    for (size_t j = 0; j < shares; ++j) got[j].assign(piece[j].size(), kNoStep);
    // Receives from `peer` of share j's pieces, `window` posted at a time.
    const auto stream = [&](int peer, size_t j, size_t window) {
        for (size_t k = 0; k < piece[j].size(); ++k)
            got[j][k] = k < window ? s.recv(peer, piece[j][k]) : s.recv(peer, piece[j][k], {got[j][k - window]});
    };
    const auto send_after = [&](size_t j, size_t k, int peer) {
        return got[j][k] == kNoStep ? s.send(peer, piece[j][k]) : s.send(peer, piece[j][k], {got[j][k]});
    };

    // Receives first (the sends depend on them). The sink: its own share from the root, every
    // other share from its home site's forwarder.
    const auto win = static_cast<size_t>(std::max(1, r.params.wan_window));
    if (!home.empty() && r.rank == mine.sink)
        for (size_t j = 0; j < shares; ++j)
            stream(static_cast<int>(j) == own ? r.root : site[static_cast<size_t>(home[j])].fwd, j, win);
    // The forwarder takes its share from the sink as a stream of its own, every receive posted,
    // also where it follows the sink in the chain: taken round by round with the other shares, its
    // piece k would wait for the others' pieces k - 1, which wait for the other sites'
    // forwarders, and the sites would advance in lockstep, a piece per WAN latency plus piece
    // (das-4x2, SMPI, 4 MiB: 3.03 s that way, against 1.85 s for multitree).
    const bool direct = own >= 0 && mine.fwd != mine.sink;
    if (direct && r.rank == mine.fwd) stream(mine.sink, static_cast<size_t>(own), rounds);
    // The chain, round by round, my site's own share first; one receive posted at a time.
    std::vector<std::pair<size_t, size_t>> order;  // (j, k)
    for (size_t k = 0; k < rounds; ++k) {
        if (own_pieces && k < own_pieces->size()) order.emplace_back(static_cast<size_t>(own), k);
        for (size_t j = 0; j < shares; ++j)
            if (static_cast<int>(j) != own && k < piece[j].size()) order.emplace_back(j, k);
    }
    std::vector<int> chain = mine.chain;
    if (home.empty()) chain.insert(chain.begin(), r.root);
    const auto at = std::find(chain.begin(), chain.end(), r.rank);
    const size_t pos = static_cast<size_t>(at - chain.begin());  // chain.size(): not in it
    const auto skipped = [&](int rank, size_t j) { return direct && rank == mine.fwd && static_cast<int>(j) == own; };
    if (pos > 0 && pos < chain.size()) {
        StepId last = kNoStep;
        for (const auto& [j, k] : order)
            if (!skipped(r.rank, j))
                last = got[j][k] =
                    last == kNoStep ? s.recv(chain[pos - 1], piece[j][k]) : s.recv(chain[pos - 1], piece[j][k], {last});
    }

    // Sends. The root: every share to its home site's sink, round by round.
    if (!home.empty() && r.rank == r.root)
        for (size_t k = 0; k < rounds; ++k)
            for (size_t j = 0; j < shares; ++j)
                if (k < piece[j].size()) s.send(sink_of(home[j]), piece[j][k]);
    if (direct && r.rank == mine.sink)
        for (size_t k = 0; k < own_pieces->size(); ++k) send_after(static_cast<size_t>(own), k, mine.fwd);
    // The forwarder: its share to every other site's sink.
    if (own >= 0 && r.rank == mine.fwd)
        for (size_t k = 0; k < own_pieces->size(); ++k)
            for (int i = 0; i < C; ++i)
                if (i != my_site && sink_of(i) >= 0) send_after(static_cast<size_t>(own), k, sink_of(i));
    // The chain: every piece on to my successor.
    if (pos + 1 < chain.size())
        for (const auto& [j, k] : order)
            if (!skipped(chain[pos + 1], j)) send_after(j, k, chain[pos + 1]);
    return s;
}

}  // namespace gridcoll::detail
