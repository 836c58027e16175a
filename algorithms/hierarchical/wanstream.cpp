// WAN-stream broadcast (gridcoll's own, on the cluster-of-clusters view of [P000] Kielmann, Bal,
// Gorlatch, "Bandwidth-efficient Collective Communication for Clustered Wide Area Systems", IPDPS
// 2000, and [P001] Karonis et al., IPDPS 2000; a site's gateway as its sink follows [P004] Aumage,
// Mercier, "MPICH/MadIII: a Cluster of Clusters-Enabled MPI Implementation", CCGRID 2003): the
// multi-tree broadcast's C - 1 two-hop trees, with every WAN link carrying one stream that its
// receiver paces, and every node's link carrying either WAN or LAN traffic, never both at once.
// Sites are the clusters of Topology level `level` (default 1).
//
// Share j of the message (C - 1 shares, one per non-root "home" site h; in proportion to each
// share's slowest WAN link where the Topology's pair links differ) travels
//   root --WAN--> sink(h) --LAN--> fwd(h) --WAN--> sink(i) of every other site i
// and every sink starts a chain through its site: sink, the other members, fwd last. A site's
// sink is its gateway, else its first member (the root's site: the first that is not the root),
// its forwarder the next one (a site of one: the sink forwards).
//
// Streams: each share is cut into pieces, the first of `first` bytes, then `seg` bytes each
// (default: the link's latency x bandwidth, at least 8 KiB); every sender posts every piece at
// once. On the root's hop, where every piece is there from the start, the sink keeps `win`
// (default 2) receives posted, so the link carries data all the time and the pieces do not start
// together; on the forwarder's hop the pieces come as they reach it, and on a full mesh every
// receive is posted (a window there started two pieces together whenever the forwarder fell
// behind, then kept them in step: SMPI, 4 MiB, das-4x32 1.712 -> 1.615 s, mixed-wan-5x16 0.940 ->
// 0.880 s; grid-32x32 0.2175 -> 0.2217 s). Where routes share links (a ring) the window stays:
// there it keeps the C - 2 streams on a link from flooding it (ring-8x16 7.95 s with it, 10.3 s
// without). Where every share fits in one piece there is no stream, and the schedule is
// multitree's with k = 1.
//
// Cost, shares of S = M / (C - 1): the WAN 2 L_w + S / B_w + about 2 seg / B_w (each hop adds L_w
// and the last pieces), then the chain: the last round's pieces through the sink's link (C - 1)
// seg / B_l plus (n - 1)(L_l + seg / B_l) down the chain; against the bound L_w + M / ((C - 1)
// B_w). Measurements and design history: docs/design/wanstream.md.
//
// References: [P000] §3, [P001] §3, [P004] (algorithms/REFERENCES.md).
#include <algorithm>
#include <cmath>
#include <vector>

#include "../core/builders.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "../packing/site_graph.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

using std::size_t;

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

// One rank's broadcast schedule: receives first (the sends depend on them), then the sends.
class WanstreamBuilder {
public:
    WanstreamBuilder(const Request& r, Schedule& s)
        : r_(r), s_(s), sites_(sites_at(*r.topology, r.params.cluster_level)), C_(sites_.count()),
          root_site_(sites_.site_of[static_cast<size_t>(r.root)]), my_site_(sites_.site_of[static_cast<size_t>(r.rank)]) {
        for (int i = 0; i < C_; ++i)
            if (i != root_site_) home_.push_back(i);
        const int level = site_level(*r.topology, r.params.cluster_level);
        for (int i = 0; i < C_; ++i) {
            const std::vector<int>& members = sites_.members[static_cast<size_t>(i)];
            site_.push_back(roles(members, r.root, i == root_site_, r.topology->gateway(members.front(), level)));
        }
        mesh_ = C_ < 3 || full_mesh(site_graph(*r.topology, sites_, level));
        cut_pieces();
    }

    // Shares that fit in one piece each have no stream to pace (docs/design/wanstream.md).
    bool every_share_fits() const {
        return !home_.empty() && std::all_of(share_fits_.begin(), share_fits_.end(), [](bool b) { return b; });
    }

    void build() {
        const SiteRoles& mine = site_[static_cast<size_t>(my_site_)];
        const auto own_it = std::find(home_.begin(), home_.end(), my_site_);
        own_ = own_it == home_.end() ? -1 : static_cast<int>(own_it - home_.begin());
        got_.assign(shares_, {});
        for (size_t j = 0; j < shares_; ++j) got_[j].assign(piece_[j].size(), kNoStep);
        direct_ = own_ >= 0 && mine.fwd != mine.sink;
        receives(mine);
        sends(mine);
    }

private:
    // Shares: equal, or in proportion to each share's slowest WAN link where the links differ
    // (shares=equal turns it off). Pieces: piece[j][k] of share j, in L B of the link it flows at
    // (one site: one share, the whole message).
    void cut_pieces() {
        const std::vector<double> weights =
            r_.params.equal_shares
                ? std::vector<double>{}
                : bcast_share_weights(site_bandwidths(*r_.topology, sites_, r_.params.cluster_level), root_site_, home_);
        shares_ = home_.empty() ? 1 : home_.size();
        const Shares share(r_.bytes, static_cast<int>(shares_), 1, weights);
        const LevelLink wan = wan_link(*r_.topology, r_.params.cluster_level);
        for (size_t j = 0; j < shares_; ++j) {
            const double bdp = wan.latency_s * (weights.empty() ? wan.bandwidth_Bps : weights[j]);
            const auto bdp_bytes = static_cast<std::uint64_t>(bdp);
            const std::uint64_t seg = std::max<std::uint64_t>(
                1, r_.params.segment ? r_.params.segment
                                     : std::max<std::uint64_t>(kLeast, static_cast<std::uint64_t>(std::ceil(bdp))));
            const std::uint64_t first = bdp <= 0 ? std::max<std::uint64_t>(1, seg / 2) : seg > bdp_bytes ? seg - bdp_bytes : 1;
            share_fits_.push_back(share.length(static_cast<int>(j)) <= seg);
            piece_.push_back(cut(share.offset(static_cast<int>(j)), share.length(static_cast<int>(j)), first, seg));
            rounds_ = std::max(rounds_, piece_.back().size());
        }
    }

    int sink_of(int i) const { return site_[static_cast<size_t>(i)].sink; }

    // Receives from `peer` of share j's pieces, `window` posted at a time.
    void stream(int peer, size_t j, size_t window) {
        for (size_t k = 0; k < piece_[j].size(); ++k)
            got_[j][k] = k < window ? s_.recv(peer, piece_[j][k]) : s_.recv(peer, piece_[j][k], {got_[j][k - window]});
    }
    StepId send_after(size_t j, size_t k, int peer) {
        return got_[j][k] == kNoStep ? s_.send(peer, piece_[j][k]) : s_.send(peer, piece_[j][k], {got_[j][k]});
    }
    // The forwarder's own share comes from the sink as a stream, not down the chain.
    bool skipped(const SiteRoles& mine, int rank, size_t j) const {
        return direct_ && rank == mine.fwd && static_cast<int>(j) == own_;
    }

    // The chain's order, round by round, my site's own share first; and my place in the chain.
    void chain_order(const SiteRoles& mine) {
        const std::vector<Span>* own_pieces = own_ >= 0 ? &piece_[static_cast<size_t>(own_)] : nullptr;
        for (size_t k = 0; k < rounds_; ++k) {
            if (own_pieces && k < own_pieces->size()) order_.emplace_back(static_cast<size_t>(own_), k);
            for (size_t j = 0; j < shares_; ++j)
                if (static_cast<int>(j) != own_ && k < piece_[j].size()) order_.emplace_back(j, k);
        }
        chain_ = mine.chain;
        if (home_.empty()) chain_.insert(chain_.begin(), r_.root);
        pos_ = static_cast<size_t>(std::find(chain_.begin(), chain_.end(), r_.rank) - chain_.begin());
    }

    // The sink: its own share from the root, `win` receives posted, every other share from its
    // home site's forwarder, every receive posted on a full mesh; the forwarder: its share from the sink, every
    // receive posted; the chain: one receive posted at a time.
    void receives(const SiteRoles& mine) {
        const auto win = static_cast<size_t>(std::max(1, r_.params.wan_window));
        if (!home_.empty() && r_.rank == mine.sink)
            for (size_t j = 0; j < shares_; ++j) {
                if (static_cast<int>(j) == own_) stream(r_.root, j, win);
                else stream(site_[static_cast<size_t>(home_[j])].fwd, j, mesh_ ? rounds_ : win);
            }
        if (direct_ && r_.rank == mine.fwd) stream(mine.sink, static_cast<size_t>(own_), rounds_);
        chain_order(mine);
        if (pos_ == 0 || pos_ >= chain_.size()) return;
        StepId last = kNoStep;
        for (const auto& [j, k] : order_)
            if (!skipped(mine, r_.rank, j))
                last = got_[j][k] =
                    last == kNoStep ? s_.recv(chain_[pos_ - 1], piece_[j][k]) : s_.recv(chain_[pos_ - 1], piece_[j][k], {last});
    }

    // The root: every share to its home site's sink, round by round; the sink: its share to the
    // forwarder; the forwarder: its share to every other site's sink; the chain: every piece on.
    void sends(const SiteRoles& mine) {
        if (!home_.empty() && r_.rank == r_.root)
            for (size_t k = 0; k < rounds_; ++k)
                for (size_t j = 0; j < shares_; ++j)
                    if (k < piece_[j].size()) s_.send(sink_of(home_[j]), piece_[j][k]);
        const size_t own = static_cast<size_t>(own_);
        if (direct_ && r_.rank == mine.sink)
            for (size_t k = 0; k < piece_[own].size(); ++k) send_after(own, k, mine.fwd);
        if (own_ >= 0 && r_.rank == mine.fwd)
            for (size_t k = 0; k < piece_[own].size(); ++k)
                for (int i = 0; i < C_; ++i)
                    if (i != my_site_ && sink_of(i) >= 0) send_after(own, k, sink_of(i));
        if (pos_ + 1 < chain_.size())
            for (const auto& [j, k] : order_)
                if (!skipped(mine, chain_[pos_ + 1], j)) send_after(j, k, chain_[pos_ + 1]);
    }

    const Request& r_;
    Schedule& s_;
    const Sites sites_;
    const int C_, root_site_, my_site_;
    std::vector<int> home_;  // share j's home site
    std::vector<SiteRoles> site_;
    size_t shares_ = 1, rounds_ = 0;
    std::vector<std::vector<Span>> piece_;
    std::vector<bool> share_fits_;
    int own_ = -1;         // my site's own share (its home), or -1 (the root's site; one site)
    bool direct_ = false;  // the forwarder takes its own share straight from the sink
    bool mesh_ = true;     // every site pair has a link of its own (else the routes share links)
    std::vector<std::vector<StepId>> got_;  // [j][k]: the step after which I hold it; kNoStep: from the start
    std::vector<std::pair<size_t, size_t>> order_;  // the chain's (j, k)
    std::vector<int> chain_;
    size_t pos_ = 0;  // my place in chain_ (chain_.size(): not in it)
};

}  // namespace

Schedule bcast_wanstream(const Request& r) {
    Schedule s(r.rank, r.size);
    WanstreamBuilder b(r, s);
    if (b.every_share_fits()) {  // then multitree:k=1:seg=64K:win=1 is faster
        Request one = r;
        one.params.fanout = 1;
        one.params.wan_window = 1;
        one.params.segment = kEagerLimit;
        return bcast_multitree(one);
    }
    b.build();
    return s;
}

}  // namespace gridcoll::detail
