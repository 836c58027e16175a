// A broadcast's streams handed at every site to one member at a time (OutTrees::hand_runs,
// out_trees.hpp). Why: SimGrid shares a node's link among its messages in inverse proportion to
// their routes' latencies and loads each message's reverse direction with a share of it, so while
// a node sends or takes in a LAN message (a 20 us route) every WAN message of that node (10 ms)
// all but stops; a sink that passes each piece down the LAN as it comes holds the WAN back for
// the whole LAN distribution (docs/design/tree-packing.md, "Trees of one rate for the
// broadcast"). Here each stream's pieces fall into runs; a run's handler at a site takes its
// pieces in and sends them on, nothing else meanwhile, then gives the run to the other members
// down a chain; the next run's handler, busy with its own run meanwhile, takes it last, once that
// run is in. The stream goes on seamlessly from one handler to the next: the next one posts its
// first receives when the previous one's window reaches the end of its run, told by a token (a
// message of no bytes) over the LAN.
#include <algorithm>

#include "out_trees.hpp"

namespace gridcoll::detail {

namespace {
constexpr std::uint64_t kLanPiece = 64 * 1024;  // the LAN chain's pieces
}  // namespace

std::vector<int> OutTrees::pool(int site) const {
    std::vector<int> p = sites_.members[static_cast<std::size_t>(site)];
    if (!streams_.empty() && site == streams_.front().src) std::erase(p, streams_.front().holder);
    return p;
}

int OutTrees::handler(int site, std::size_t q) const {
    const std::vector<int> p = pool(site);
    return p.empty() ? -1 : p[q % p.size()];
}

std::size_t OutTrees::run_of(const Stream& st, std::size_t k) {
    return k * static_cast<std::size_t>(st.runs) / st.pieces.size();
}

std::size_t OutTrees::first_of(const Stream& st, std::size_t q) {
    const auto runs = static_cast<std::size_t>(st.runs);
    return std::min(st.pieces.size(), (q * st.pieces.size() + runs - 1) / runs);
}

// The piece of run q - 1 whose arrival lets the next handler post its receive of piece k (the
// first `window` of run q): the window before k, no earlier than run q - 1's first.
std::size_t OutTrees::token_after(const Stream& st, std::size_t k) const {
    const std::size_t w = st.window[static_cast<std::size_t>(my_site_)], q = run_of(st, k);
    return std::max(k > w ? k - w : 0, first_of(st, q - 1));
}

// What my receive of piece k of stream j waits for, where its run is handed: the receive w pieces
// before, mine, or its token from the run's previous handler.
StepId OutTrees::run_gate(std::size_t j, std::size_t k) const {
    const Stream& st = streams_[j];
    const std::size_t q = run_of(st, k), w = st.window[static_cast<std::size_t>(my_site_)];
    if (k >= w && handler(my_site_, run_of(st, k - w)) == r_.rank) return wan_got_[j][k - w];
    if (q == 0) return kNoStep;
    if (handler(my_site_, q - 1) == r_.rank) return wan_got_[j][token_after(st, k)];
    return token_got_[j][k];
}

// The key after run q's last piece reaches `site` on every stream.
double OutTrees::run_end(std::size_t q, int site) const {
    double end = 0;
    for (const Stream& st : streams_)
        if (st.runs) end = std::max(end, st.key(first_of(st, q + 1) - 1, site));
    return end;
}

// My WAN receives of run q (of stream j only, where given).
std::vector<StepId> OutTrees::run_got(std::size_t q, std::size_t j) const {
    std::vector<StepId> got;
    for (std::size_t i = 0; i < streams_.size(); ++i)
        if (streams_[i].runs && (j == kAllStreams || i == j))
            for (std::size_t k = first_of(streams_[i], q); k < first_of(streams_[i], q + 1); ++k) got.push_back(wan_got_[i][k]);
    std::erase(got, kNoStep);
    return got;
}

// Each run's bytes, stream by stream, in pieces of at most kLanPiece (a stream's pieces are
// contiguous in Out).
void OutTrees::cut_lan_pieces() {
    lan_.assign(static_cast<std::size_t>(runs_), {});
    for (std::size_t j = 0; j < streams_.size(); ++j) {
        const Stream& st = streams_[j];
        if (!st.runs) continue;
        for (std::size_t q = 0; q < lan_.size(); ++q) {
            const std::size_t a = first_of(st, q), b = first_of(st, q + 1);
            if (a >= b) continue;
            const std::uint64_t off = st.pieces[a].off, end = st.pieces[b - 1].off + st.pieces[b - 1].len;
            std::uint64_t at = off;
            for (std::uint64_t n : piece_lengths(end - off, kLanPiece, kLanPiece, r_.elem, false)) {
                lan_[q].push_back({j, Span{Buf::Out, at, n}});
                at += n;
            }
        }
    }
}

// The key after every child of `site` (and the source's return) has run q's last piece.
double OutTrees::child_end(std::size_t q, int site) const {
    double end = 0;
    for (const Stream& st : streams_) {
        if (!st.runs || first_of(st, q + 1) == 0) continue;
        const std::size_t k = first_of(st, q + 1) - 1;
        for (int c : st.tree.children(site)) end = std::max(end, st.key(k, c) + 1e-7);
        if (site == st.ret) end = std::max(end, st.key(k, st.src) + 1e-7);
    }
    return end;
}

// A handler's word back to its parent's once run q's last piece is in: the parent starts its LAN
// chain only then, so its last WAN sends do not share its link with it. And the source's
// children's go for run q: the holder sends a run's pieces to a child's handler only once the
// child's previous handler is two windows from its run's end — over TCP an eager send leaves at
// once, and every run would cross the link together.
void OutTrees::back_events(std::size_t q, std::vector<Event>& out) const {
    const int site = my_site_, me = r_.rank;
    for (std::size_t j = 0; j < streams_.size(); ++j) {
        const Stream& st = streams_[j];
        if (!st.runs || first_of(st, q + 1) <= first_of(st, q)) continue;
        if (q > 0)
            for (int c : st.tree.children(st.src)) {
                const std::size_t f = first_of(st, q), w = 2 * st.window[static_cast<std::size_t>(c)];
                const std::size_t t = std::max(f > w ? f - w : 0, first_of(st, q - 1));
                if (site == c && me == sink_of(st, c, t)) out.push_back({st.key(t, c) + 1e-7, j, t, Kind::StartSend, st.holder});
                if (site == st.src && me == st.holder) out.push_back({st.key(t, c) + 1e-7, j, f, Kind::StartRecv, sink_of(st, c, t)});
            }
        const std::size_t k = first_of(st, q + 1) - 1;
        if (site != st.src && me == sink_of(st, site, k)) {
            const int parent = st.tree.parent[static_cast<std::size_t>(site)];
            out.push_back({st.key(k, site) + 1e-7, j, k, Kind::BackSend, sender(st, parent, k)});
        }
        if (site == st.src && st.ret >= 0 && me == src_sink_of(st, k))
            out.push_back({st.key(k, site) + 1e-7, j, k, Kind::BackSend, fwd_of(st, st.ret, k)});
        if (me == sender(st, site, k)) {
            for (int c : st.tree.children(site)) out.push_back({st.key(k, c) + 1e-7, j, k, Kind::BackRecv, sink_of(st, c, k)});
            if (site == st.ret) out.push_back({st.key(k, st.src) + 1e-7, j, k, Kind::BackRecv, src_sink_of(st, k)});
        }
    }
}

// My tokens and LAN chain for run q at my site.
void OutTrees::run_events(std::size_t q, std::vector<Event>& out) const {
    const int site = my_site_, me = r_.rank;
    const std::vector<int> p = pool(site);
    if (p.size() < 2 || lan_[q].empty()) return;
    const int h = handler(site, q), next = handler(site, q + 1);
    if (site != streams_.front().src && q + 1 < lan_.size())  // the tokens that start run q + 1
        for (std::size_t j = 0; j < streams_.size(); ++j) {
            const Stream& st = streams_[j];
            if (!st.runs) continue;
            const std::size_t f = first_of(st, q + 1), w = st.window[static_cast<std::size_t>(site)];
            for (std::size_t k = f; k < std::min({f + w, first_of(st, q + 2), st.pieces.size()}); ++k) {
                const double key = st.key(token_after(st, k), site);  // before k's, which waits for it
                if (me == h) out.push_back({key + 1e-7, j, k, Kind::TokenSend, next});
                if (me == next) out.push_back({key - 1e-7, j, k, Kind::TokenRecv, h});
            }
        }
    // The chain: the handler, the members that handle later runs, the next run's handler last.
    std::vector<int> chain{h};
    for (std::size_t i = 2; i < p.size(); ++i) chain.push_back(handler(site, q + i));
    chain.push_back(next);
    const auto pos = static_cast<std::size_t>(std::find(chain.begin(), chain.end(), me) - chain.begin());
    if (pos == chain.size()) return;
    const double base = std::max(run_end(q, site), child_end(q, site)) + 1e-6;
    // The next run's handler takes it in once its own run is in.
    const double last = q + 1 < lan_.size() ? std::max({base, run_end(q + 1, site) + 1e-6, child_end(q + 1, site) + 1e-6}) : base;
    for (std::size_t k = 0; k < lan_[q].size(); ++k) {
        const double key = (pos + 1 == chain.size() ? last : base) + 1e-9 * static_cast<double>(k);
        if (pos > 0) out.push_back({key, q, k, Kind::LanRecv, chain[pos - 1]});
        if (pos + 1 < chain.size()) out.push_back({key, q, k, Kind::LanSend, chain[pos + 1]});
    }
}

void OutTrees::emit_run(const Event& e) {
    if (e.kind == Kind::LanRecv || e.kind == Kind::LanSend) return emit_lan(e);
    // The rest are messages of no bytes over stream e.j's pair: the holder's go, a child's word,
    // a token over the LAN (which carries no WAN stream; the chain takes first_channel_).
    const bool token = e.kind == Kind::TokenSend || e.kind == Kind::TokenRecv;
    const auto ch = static_cast<std::uint16_t>(token ? first_channel_ + 1 + e.j % (channels_ - 1) : first_channel_ + e.j % channels_);
    const Span none{Buf::Out, streams_[e.j].pieces.front().off, 0};
    const auto recv = [&] { return c_.add(Step{Op::Recv, Order::DstLeft, ch, e.peer, {}, none}); };
    const auto send_after = [&](StepId got) { c_.add(Step{Op::Send, Order::DstLeft, ch, e.peer, none, {}}, {got}); };
    switch (e.kind) {  // e.k: the piece it follows or lets in
        case Kind::StartRecv: start_got_[{e.j, e.k, sites_.site_of[static_cast<std::size_t>(e.peer)]}] = recv(); break;
        case Kind::BackRecv: back_got_[run_of(streams_[e.j], e.k)].push_back(recv()); break;
        case Kind::TokenRecv: token_got_[e.j][e.k] = recv(); break;
        case Kind::StartSend:
        case Kind::BackSend: send_after(wan_got_[e.j][e.k]); break;
        case Kind::TokenSend: send_after(wan_got_[e.j][token_after(streams_[e.j], e.k)]); break;
        default: break;
    }
}

// A piece of a run's LAN chain.
void OutTrees::emit_lan(const Event& e) {
    const std::size_t q = e.j;  // LAN events: e.j the run, e.k the piece
    const LanPiece& lp = lan_[q][e.k];
    const auto lan = static_cast<std::uint16_t>(first_channel_);
    const bool handles = r_.rank == handler(my_site_, q);
    if (e.kind == Kind::LanRecv) {
        std::vector<StepId> deps{lan_got_};
        if (q + 1 < lan_.size() && r_.rank == handler(my_site_, q + 1) && e.k == 0) {
            const std::vector<StepId> mine = run_got(q + 1);  // the next run's handler: after its run
            deps.insert(deps.end(), mine.begin(), mine.end());
            deps.insert(deps.end(), back_got_[q + 1].begin(), back_got_[q + 1].end());
        }
        lan_got_ = c_.add(Step{Op::Recv, Order::DstLeft, lan, e.peer, {}, lp.span}, std::span<const StepId>(deps));
    } else if (e.kind == Kind::LanSend) {
        // The handler sends once the stream's run is in; the others pass on what they took.
        std::vector<StepId> deps = handles ? run_got(q, lp.j) : std::vector<StepId>{lan_got_};
        if (handles) deps.insert(deps.end(), back_got_[q].begin(), back_got_[q].end());
        c_.add(Step{Op::Send, Order::DstLeft, lan, e.peer, lp.span, {}}, std::span<const StepId>(deps));
    }
}

int handed_runs(const SiteGraph& g, const RootTrees& trees, std::uint64_t bytes, std::uint64_t seg, double lan_Bps, int most) {
    if (!(lan_Bps > 0) || trees.trees.empty()) return 1;
    double rate = 0, piece_time = 0, hop = 0;
    for (const SiteTree& t : trees.trees) {
        rate += t.rate;
        piece_time = std::max(piece_time, static_cast<double>(piece_cut(g, t, trees.root, t.rate, Way::Out, seg).second) / t.rate);
        for (int v = 0; v < static_cast<int>(t.parent.size()); ++v)
            if (const int p = t.parent[static_cast<std::size_t>(v)]; p >= 0) hop = std::max(hop, g.latency(p, v));
    }
    const auto m = static_cast<double>(bytes);
    for (int runs = most; runs >= 2; --runs)
        if (m / runs / rate >= 3 * piece_time + hop + m / runs / lan_Bps) return runs;
    return 1;
}

}  // namespace gridcoll::detail
