#include "out_trees.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gridcoll::detail {

std::vector<std::uint64_t> piece_lengths(std::uint64_t len, std::uint64_t first, std::uint64_t seg, std::uint64_t elem,
                                         bool small_last) {
    const auto whole = [elem](std::uint64_t x) { return std::max(elem, (x + elem - 1) / elem * elem); };
    first = whole(first);
    seg = whole(seg);
    std::vector<std::uint64_t> v;
    const std::uint64_t tail = small_last && seg >= 4 * elem && len > first + 2 * seg ? whole(seg / 2) + whole(seg / 4) : 0;
    for (std::uint64_t at = 0; at < len - tail;) {
        const std::uint64_t n = std::min(len - tail - at, v.empty() ? std::max<std::uint64_t>(1, first) : seg);
        v.push_back(n);
        at += n;
    }
    if (tail) {
        v.push_back(whole(seg / 2));
        v.push_back(whole(seg / 4));
    }
    return v;
}

std::vector<std::vector<Span>> cut_shares(const std::vector<Span>& data, const std::vector<double>& weights,
                                          const std::vector<std::pair<std::uint64_t, std::uint64_t>>& first_seg,
                                          std::uint64_t elem) {
    std::uint64_t total = 0;
    for (const Span& sp : data) total += sp.len;
    const Shares shares(total, static_cast<int>(weights.size()), elem, weights.size() > 1 ? weights : std::vector<double>{});
    std::vector<std::vector<Span>> out(weights.size());
    std::size_t span = 0;
    std::uint64_t base = 0;  // where data[span] starts in the concatenation
    for (std::size_t k = 0; k < weights.size(); ++k) {
        std::uint64_t at = shares.offset(static_cast<int>(k));
        const std::uint64_t len = shares.length(static_cast<int>(k));
        if (len == 0) continue;
        for (std::uint64_t n : piece_lengths(len, first_seg[k].first, first_seg[k].second, elem))
            while (n > 0) {  // a piece that crosses a span's end is two
                while (base + data[span].len <= at) base += data[span++].len;
                const std::uint64_t take = std::min(n, base + data[span].len - at);
                out[k].push_back(Span{data[span].buf, data[span].off + (at - base), take});
                at += take;
                n -= take;
            }
    }
    return out;
}

OutTrees::OutTrees(const Request& r, Composer& c, const Sites& sites, const SiteGraph& g, int level, std::uint64_t seg,
                   int win)
    : r_(r), c_(c), sites_(sites), g_(g), seg_(seg), win_(std::max(1, win)),
      my_site_(sites.site_of[static_cast<std::size_t>(r.rank)]) {
    for (const auto& m : sites.members) {
        const int gw = r.topology->gateway(m.front(), level);
        sink_.push_back(gw >= 0 ? gw : m.front());
        fwd_.push_back(gw >= 0 ? gw : m.size() > 1 ? m[1] : m.front());
    }
}

int OutTrees::sink(int site) const { return sink_[static_cast<std::size_t>(site)]; }
int OutTrees::forwarder(int site) const { return fwd_[static_cast<std::size_t>(site)]; }

// WAN receives a site keeps posted for tree t's stream (pieces of `seg` bytes at `rate`): as many
// as its route holds, and one more, so that a piece is always sending (at least the window asked
// for). The source holds every piece at once, so its children pace the stream, and more there
// would start pieces over the link together (SimGrid then shares it and they stay in step); the
// pieces are cut so that two suffice there (add_source). Further down the pieces come one after
// another: build() adds one more there in a broadcast. The source's own members take the stream
// back from a child (return_into_source) with every receive posted (kAllPosted). Why, and the
// measurements: docs/design/tree-packing.md, "Pacing".
std::vector<std::size_t> OutTrees::hop_windows(const SiteTree& t, double rate, std::uint64_t seg) const {
    std::vector<std::size_t> window(static_cast<std::size_t>(sites_.count()), kAllPosted);
    const auto route_holds = [&](int p, int v) {
        const double in_flight = g_.latency(p, v) * rate / static_cast<double>(seg);
        return std::max(static_cast<std::size_t>(win_), static_cast<std::size_t>(std::ceil(in_flight - 0.05)) + 1);
    };
    for (int v = 0; v < sites_.count(); ++v)
        if (const int p = t.parent[static_cast<std::size_t>(v)]; p >= 0)
            window[static_cast<std::size_t>(v)] = route_holds(p, v);
    return window;
}

namespace {

// When a piece reaches each site of `t`: a route latency and a whole piece's time after its parent
// did (store and forward), plus a microsecond that keeps a child's key after its parent's; no
// sooner than `least` (per site, where given).
std::vector<double> arrivals(const SiteGraph& g, const SiteTree& t, double piece_time, const std::vector<double>& least) {
    std::vector<double> at(t.parent.size(), 0.0);
    for (int v : t.top_down())
        if (const int p = t.parent[static_cast<std::size_t>(v)]; p >= 0) {
            const auto i = static_cast<std::size_t>(v);
            at[i] = at[static_cast<std::size_t>(p)] + g.latency(p, v) + piece_time + 1e-6;
            if (!least.empty()) at[i] = std::max(at[i], least[i]);
        }
    return at;
}

}  // namespace

std::uint64_t least_piece(double rate, double seconds, double pieces) {
    if (pieces <= 0 || seconds <= 0) return kLeastPiece;
    return std::clamp(static_cast<std::uint64_t>(rate * seconds / pieces), kLeastFinePiece, kLeastPiece);
}

// Pieces of a latency x rate (at least `least`: 8 KiB, or least_piece's) unless told — the latency
// of the source's longest hop in the tree, where the source holds every piece (hop_windows), else
// the least route's; the first one that much shorter, so that of the two in flight one is always
// sending (wanstream.cpp's cut).
std::pair<std::uint64_t, std::uint64_t> piece_cut(const SiteGraph& g, const SiteTree& t, int src, double rate, Way way,
                                                  std::uint64_t seg, std::uint64_t least) {
    double hop = least_route_latency(g);
    if (way == Way::Out)
        for (int c : t.children(src)) hop = std::max(hop, g.latency(src, c));
    const auto bdp = static_cast<std::uint64_t>(std::ceil(hop * rate));
    if (!seg) seg = std::max<std::uint64_t>(least, bdp);
    return {seg > bdp ? seg - bdp : 1, seg};
}

namespace {

// When the last piece of a stream of `rate` along `t` from `src` reaches its farthest site, after
// its first leaves: route latencies and a piece's time a hop.
double reach(const SiteGraph& g, const SiteTree& t, int src, double rate, std::uint64_t seg) {
    const std::vector<double> at = arrivals(g, t, static_cast<double>(piece_cut(g, t, src, rate, Way::Out, seg).second) / rate, {});
    return *std::max_element(at.begin(), at.end());
}

}  // namespace

// The message's last bytes along the least-latency tree whose edges are single hops where the
// packing's trees are deeper (a ring's two chains cross every site; that tree half of them): the
// packed trees carry the rest at their rate R and their last piece ends H after it leaves; the
// tail of D bytes, at the rate r its tree gets alone, leaves the source after them and ends D / r
// + h later. The two end together at D = r (H - h), which saves r (H - h) / R. None where that is
// under two pieces, and at most a quarter of the message. Only behind trees no slower than the
// tail: a piece of a thin tree gets an equal share of each link it crosses, not its tree's rate,
// so its time a hop (and so H) is not known well enough; behind the eight thin trees of pmesh-6x16
// and of the partial meshes of validation/random_wan_graphs.py a tail made 4 MiB 3 to 8 % slower.
BcastTail bcast_tail(const SiteGraph& g, const RootTrees& trees, std::uint64_t bytes, std::uint64_t seg, std::uint64_t elem) {
    const int src = trees.root;
    const SiteTree fast = forwarding_tree(g, src);
    const double rate = achieved_rates(g, {RootTrees{src, 0.0, {fast}, Way::Out}}, true).front().front();
    double deep = 0;
    for (const SiteTree& t : trees.trees) {
        if (t.rate < 0.9 * rate) return {};
        deep = std::max(deep, reach(g, t, src, t.rate, seg));
    }
    const double gap = deep - reach(g, fast, src, rate, seg);
    const double tail = std::min(rate * gap, static_cast<double>(bytes) / 4);
    if (gap <= 0 || tail < 2.0 * kLeastPiece) return {};
    return {SiteTree{fast.parent, rate}, static_cast<std::uint64_t>(tail) / elem * elem};
}

// A stream of `pieces` along `t` at `rate`, its first piece leaving `start` seconds after the
// source's first; `back`: its source site's members take it back from a child.
OutTrees::Stream OutTrees::stream_of(int src, int holder, const SiteTree& t, std::vector<Span> pieces,
                                     bool chain_at_source, bool back, double rate, std::uint64_t seg, double start) const {
    Stream st{src, holder, t, std::move(pieces), chain_at_source, {}, {}, {}, -1, -1, rate, {}, chain_at_source ? runs_ : 0};
    const double piece_time = static_cast<double>(seg) / rate;
    st.arrive = arrivals(g_, st.tree, piece_time, {});
    st.window = hop_windows(st.tree, rate, seg);
    if (back) return_into_source(st, piece_time);
    double bytes = 0;
    for (const Span& sp : st.pieces) {
        st.before.push_back(start + bytes / rate);
        bytes += static_cast<double>(sp.len);
    }
    return st;
}

void OutTrees::add_source(int src, int holder, const std::vector<Span>& data, const RootTrees& trees, bool chain_at_source) {
    std::vector<SiteTree> list = trees.trees;
    if (list.empty()) list.push_back(SiteTree{std::vector<int>(static_cast<std::size_t>(sites_.count()), -1), 1.0});
    std::vector<double> w;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> first_seg;
    double total = 0, rate = 0;
    for (const Span& sp : data) total += static_cast<double>(sp.len);
    for (const SiteTree& t : list) rate += std::max(t.rate, 1e-9);
    for (const SiteTree& t : list) {
        w.push_back(std::max(t.rate, 1e-9));
        const std::uint64_t least = least_piece(w.back(), total / rate, pieces_a_tree_);
        first_seg.push_back(piece_cut(g_, t, src, w.back(), trees.way, seg_, least));
    }
    auto pieces = cut_shares(data, w, first_seg, r_.elem);
    for (std::size_t k = 0; k < list.size(); ++k) {
        if (pieces[k].empty()) continue;
        // Trees that bring sums in as well keep the links into the source busy: its members get
        // the pieces down a chain from the holder.
        streams_.push_back(stream_of(src, holder, list[k], std::move(pieces[k]), chain_at_source,
                                     chain_at_source && trees.way != Way::Both, w[k], first_seg[k].second, 0.0));
        streams_.back().half = static_cast<int>(k % 2);  // the trees in turn to a hub site's two sinks
    }
}

void OutTrees::add_tail(int src, int holder, const std::vector<Span>& data, const SiteTree& tail) {
    const double rate = std::max(tail.rate, 1e-9);
    const auto cut = piece_cut(g_, tail, src, rate, Way::Out, seg_);
    std::vector<Span> pieces = cut_shares(data, {1.0}, {cut}, r_.elem).front();
    if (pieces.empty()) return;
    double start = 0;  // when the earlier streams have left the source
    std::vector<std::size_t> after;
    for (std::size_t j = 0; j < streams_.size(); ++j)
        if (streams_[j].src == src) {
            after.push_back(j);
            start = std::max(start, streams_[j].before.back() + static_cast<double>(streams_[j].pieces.back().len) / streams_[j].rate);
        }
    Stream st = stream_of(src, holder, tail, std::move(pieces), true, true, rate, cut.second, start);
    st.after = std::move(after);
    follow(st, static_cast<double>(cut.second) / rate);
    streams_.push_back(std::move(st));
}

// A tail's keys at each site after the last piece of every stream it follows in from the same
// site, so that both ends of every pair list them in that order.
void OutTrees::follow(Stream& tail, double piece_time) const {
    std::vector<double> least(static_cast<std::size_t>(sites_.count()), 0.0);
    for (std::size_t j : tail.after) {
        const Stream& st = streams_[j];
        for (int v = 0; v < sites_.count(); ++v)
            if (st.from(v) >= 0 && st.from(v) == tail.from(v))
                least[static_cast<std::size_t>(v)] = std::max(least[static_cast<std::size_t>(v)],
                                                              st.key(st.pieces.size() - 1, v) - tail.before.front() + 1e-6);
    }
    tail.arrive = arrivals(g_, tail.tree, piece_time, least);
    if (tail.ret >= 0) {
        const auto s = static_cast<std::size_t>(tail.src);
        tail.arrive[s] = std::max(tail.arrive[static_cast<std::size_t>(tail.ret)] + g_.latency(tail.ret, tail.src) + piece_time + 1e-6, least[s]);
    }
}

// The receives a tail's first pieces at my site wait for: my last of each stream it follows in
// from the same site.
std::vector<StepId> OutTrees::gate(const Stream& st) const {
    std::vector<StepId> g;
    for (std::size_t j : st.after)
        if (const int f = st.from(my_site_); f >= 0 && streams_[j].from(my_site_) == f && !wan_got_[j].empty())
            g.push_back(wan_got_[j].back());
    return g;
}

// The source site's other members get a broadcast stream back over the WAN from the child of
// the source that has it first; its sink there is a member other than the holder.
void OutTrees::return_into_source(Stream& st, double piece_time) const {
    const std::vector<int>& m = sites_.members[static_cast<std::size_t>(st.src)];
    const std::vector<int> kids = st.tree.children(st.src);
    if (m.size() < 2 || kids.empty()) return;
    st.ret = *std::min_element(kids.begin(), kids.end(), [&](int a, int b) {
        return st.arrive[static_cast<std::size_t>(a)] < st.arrive[static_cast<std::size_t>(b)];
    });
    st.src_sink = m.front() != st.holder ? m.front() : m[1];
    const double lat = g_.latency(st.ret, st.src);
    st.arrive[static_cast<std::size_t>(st.src)] = st.arrive[static_cast<std::size_t>(st.ret)] + lat + piece_time + 1e-6;
}

bool OutTrees::hub_site(const Stream& st, int site) const {
    const std::vector<int>& m = sites_.members[static_cast<std::size_t>(site)];
    return hub_ && st.chain_at_source && !st.runs && site != st.src && m.size() >= 4 && sink(site) == m[0] && forwarder(site) == m[1];
}

std::vector<int> OutTrees::chain(const Stream& st, int site) const {
    const std::vector<int>& m = sites_.members[static_cast<std::size_t>(site)];
    std::vector<int> c;
    if (st.runs) return c;  // a run's handler gives it on in one chain (out_runs.cpp)
    if (site == st.src) {
        if (!st.chain_at_source) return c;
        c.push_back(st.ret >= 0 ? st.src_sink : st.holder);
        for (int x : m)
            if (x != st.holder && x != c.front()) c.push_back(x);
        return c;
    }
    const int sk = sink(site), fw = forwarder(site);
    if (hub_site(st, site)) {  // the stream's sink, the hub, the members left (hub_sites)
        c = {sink_of(st, site, 0), hub_of(site)};
        c.insert(c.end(), m.begin() + 4, m.end());
        return c;
    }
    c.push_back(sk);
    for (int x : m)
        if (x != sk && x != fw) c.push_back(x);
    if (fw != sk && !forwards(st, site)) c.push_back(fw);  // else it takes its pieces from the sink
    return c;
}

// My part in stream j, piece by piece: WAN in (sink), straight to the forwarder, the chain, WAN
// out (holder or forwarder) — each at the key of the site the piece arrives at.
void OutTrees::events_of(std::size_t j, std::vector<Event>& out) const {
    const Stream& st = streams_[j];
    const int me = r_.rank, site = my_site_;
    const bool source = site == st.src;
    const std::vector<int> ch = chain(st, site), kids = st.tree.children(site);
    const auto pos = static_cast<std::size_t>(std::find(ch.begin(), ch.end(), me) - ch.begin());
    for (std::size_t k = 0; k < st.pieces.size(); ++k) {
        const double key = st.key(k, site);
        const int sk = sink_of(st, site, k), fw = fwd_of(st, site, k);
        const bool hub = hub_site(st, site);
        const bool direct = !source && fw != sk && (hub || forwards(st, site));
        const int lan_src = hub ? hub_of(site) : sk;
        const double dkey = key + (hub ? 3e-7 : 1e-7);
        if (!source && me == sk) out.push_back({key, j, k, Kind::WanRecv, sender(st, st.tree.parent[static_cast<std::size_t>(site)], k)});
        if (direct && me == lan_src) out.push_back({dkey, j, k, Kind::DirectSend, fw});
        if (direct && me == fw) out.push_back({dkey, j, k, Kind::DirectRecv, lan_src});
        if (hub) {  // the hub gives the piece to the other sink at once
            const int other = sk == sink(site) ? second_sink(site) : sink(site);
            if (me == lan_src) out.push_back({dkey, j, k, Kind::DirectSend, other});
            if (me == other) out.push_back({dkey, j, k, Kind::DirectRecv, lan_src});
        }
        if (pos < ch.size() && pos > 0) out.push_back({key + 2e-7, j, k, Kind::ChainRecv, ch[pos - 1]});
        if (pos + 1 < ch.size()) out.push_back({key + 2e-7, j, k, Kind::ChainSend, ch[pos + 1]});
        if (source && st.ret >= 0 && me == src_sink_of(st, k)) out.push_back({key, j, k, Kind::WanRecv, fwd_of(st, st.ret, k)});
        if (me == sender(st, site, k)) {
            for (int c : kids) out.push_back({st.key(k, c), j, k, Kind::WanSend, sink_of(st, c, k)});
            if (site == st.ret) out.push_back({st.key(k, st.src), j, k, Kind::WanSend, src_sink_of(st, k)});
        }
    }
}

void OutTrees::emit(const Event& e) {
    if (e.kind == Kind::TokenRecv || e.kind >= Kind::TokenSend) return emit_run(e);  // a run's, not a stream's
    const Span piece = streams_[e.j].pieces[e.k];
    const auto ch = static_cast<std::uint16_t>(first_channel_ + e.j % channels_);  // each stream its own channel
    const auto send = [&] { c_.add(Step{Op::Send, Order::DstLeft, ch, e.peer, piece, {}}); };
    switch (e.kind) {
        case Kind::WanRecv: {
            const std::size_t w = streams_[e.j].window[static_cast<std::size_t>(my_site_)];
            const Stream& st = streams_[e.j];
            std::vector<StepId> deps = e.k < w ? gate(st) : std::vector<StepId>{wan_got_[e.j][e.k - w]};
            if (st.runs && my_site_ != st.src) deps = {run_gate(e.j, e.k)};  // the run before may be another's
            wan_got_[e.j][e.k] = c_.add(Step{Op::Recv, Order::DstLeft, ch, e.peer, {}, piece}, std::span<const StepId>(deps));
            break;
        }
        case Kind::DirectRecv: c_.add(Step{Op::Recv, Order::DstLeft, ch, e.peer, {}, piece}); break;
        case Kind::ChainRecv:
            chain_got_[e.j] = c_.add(Step{Op::Recv, Order::DstLeft, ch, e.peer, {}, piece}, {chain_got_[e.j]});
            break;
        case Kind::DirectSend:
        case Kind::ChainSend:
        case Kind::WanSend: {
            // The holder sends a run's pieces to a child's handler once the child's previous
            // handler says go (out_runs.cpp): the first piece holds the rest in its queue.
            const Stream& st = streams_[e.j];
            const auto go = st.runs && r_.rank == st.holder && my_site_ == st.src
                                ? start_got_.find({e.j, e.k, sites_.site_of[static_cast<std::size_t>(e.peer)]})
                                : start_got_.end();
            if (go == start_got_.end()) send();
            else c_.add(Step{Op::Send, Order::DstLeft, ch, e.peer, piece, {}}, {go->second});
            break;
        }
        default: break;
    }
}

void OutTrees::build() {
    // One source (a broadcast): a site below the source's children keeps one more receive posted,
    // so a parent that falls behind sends its next piece at once (where every site is a source,
    // the others' streams fill such gaps, and the extra piece would only take from them).
    const bool one_source = std::all_of(streams_.begin(), streams_.end(), [&](const Stream& st) { return st.src == streams_.front().src; });
    if (one_source)
        for (Stream& st : streams_)
            for (int v = 0; v < sites_.count(); ++v)
                if (const int p = st.tree.parent[static_cast<std::size_t>(v)]; p >= 0 && p != st.src) ++st.window[static_cast<std::size_t>(v)];
    wan_got_.assign(streams_.size(), {});
    chain_got_.assign(streams_.size(), kNoStep);
    token_got_.assign(streams_.size(), {});
    lan_got_ = kNoStep;
    cut_lan_pieces();
    std::vector<Event> events;
    for (std::size_t j = 0; j < streams_.size(); ++j) {
        wan_got_[j].assign(streams_[j].pieces.size(), kNoStep);
        if (streams_[j].runs) token_got_[j].assign(streams_[j].pieces.size(), kNoStep);
        events_of(j, events);
    }
    back_got_.assign(lan_.size(), {});
    start_got_.clear();
    for (std::size_t q = 0; q < lan_.size(); ++q) run_events(q, events), back_events(q, events);
    // One order for both ends of every pair: the key, then the stream and piece; a rank's
    // receive of a piece (smaller key) comes before its sends of it.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        if (a.key != b.key) return a.key < b.key;
        if (a.j != b.j) return a.j < b.j;
        if (a.k != b.k) return a.k < b.k;
        return a.kind < b.kind;
    });
    for (const Event& e : events) emit(e);
}

}  // namespace gridcoll::detail
