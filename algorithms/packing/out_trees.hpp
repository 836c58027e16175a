// Streams along packed site trees (packing.hpp), outwards: each source site's data leaves its
// holder rank in shares, one per tree in proportion to the tree's rate, and every site passes
// each piece on to its children in the tree and down a chain through its own members as soon as
// it is in. The broadcast has one source (the root's site); the allgather every site.
//
// Roles, as in the WAN-stream broadcast (wanstream.cpp, after [P004]'s gateways): a site's sink
// receives every WAN stream into it (its gateway where the Topology names one) and starts the
// chain; its forwarder (the next member) sends every WAN stream out of it, taking the pieces it
// must forward straight from the sink — so no node's link carries WAN and LAN traffic in the
// same direction (SimGrid, like TCP, gives a short-latency flow nearly all of a link it shares
// with a long one). A site of one rank does both. The chain posts one receive at a time; WAN
// receives are posted per stream as hop_windows() says (the receiver paces the source's hops).
//
// Streams that share a pair of ranks (a sink hands a ring's two directions to its forwarder) must
// not wait for each other, so each stream has its own channel (schedule.hpp; stream j: channel
// j mod kChannels). Where streams outnumber the channels and two share one, both ends must list
// their messages in one order: every rank emits its steps in the order the pieces are expected to
// arrive — a piece's key at a site is its tree's route latency to the site, plus a piece's time
// and a microsecond a hop, plus the bytes of its share before it over the tree's rate.
//
// Internal to algorithms/.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "../hierarchical/compose.hpp"
#include "../hierarchical/sites.hpp"
#include "packing.hpp"

namespace gridcoll::detail {

class OutTrees {
public:
    // `seg`: piece size (0: the default, the route latency times the tree's rate, at least least_piece).
    OutTrees(const Request& r, Composer& c, const Sites& sites, const SiteGraph& g, int level, std::uint64_t seg, int win);

    // Source site `src`, whose `data` (spans of Out, in order) rank `holder` holds (-1: every
    // member does, and each stream leaves from its forwarder there), along `trees` (rooted at
    // src). `chain_at_source`: the source site's other members still need it (a broadcast):
    // each stream comes back into the source site from its first child there, over WAN links no
    // broadcast stream uses (so the holder's link carries WAN traffic only), else down a chain
    // from the holder.
    void add_source(int src, int holder, const std::vector<Span>& data, const RootTrees& trees, bool chain_at_source);
    // Then `data` (the source's last bytes) along one more tree, `tail` (at tail.rate), after the
    // streams add_source gave `src`: a site takes its first piece in only once it has the last
    // piece of every earlier stream from the same site, so the tail follows them over the links
    // they share (a broadcast's last bytes over a shallower tree: bcast_packed).
    void add_tail(int src, int holder, const std::vector<Span>& data, const SiteTree& tail);
    // Streams from then on (a broadcast's) hand their pieces at every site to one member at a
    // time: each stream's pieces in `runs` runs, run q taken in and sent on by the site's q-th
    // member in turn (its handler), which then gives the run to the others down a chain — the
    // next run's handler last, once its own run is in. So no node's link carries WAN and LAN
    // traffic at once (out_runs.cpp). 0: a sink and a forwarder per site, a chain per piece.
    void hand_runs(int runs) { runs_ = runs; }
    // Streams from then on (a broadcast's) reach a site of four members or more by two sinks and
    // a hub (not where runs are handed, nor at the source's site): the streams in turn go to the
    // sink and to a second sink; each sends every piece on to the hub only, which gives it to
    // the forwarder and the other sink at once, then down a chain through the members left.
    // SimGrid stalls a node's WAN messages while a LAN message has the node's link to itself,
    // not while the LAN message's bottleneck is another node's link shared with a second message
    // (validation/coupling_probe.sh): the hub's link in carries the two sinks' messages, its link
    // out two at once, so neither the forwarder's messages in nor, when both sinks send, theirs
    // out take a whole link. Over TCP it is slower: not the default (docs/design/hub-sites.md).
    void hub_sites(bool on) { hub_ = on; }

    // Emits this rank's steps.
    // Streams use channels first .. first + count - 1 (default: all of them): two schedules on
    // the same ranks (an allreduce's in- and out-trees) keep apart by taking halves.
    void use_channels(std::size_t first, std::size_t count) { first_channel_ = first, channels_ = count; }
    // Default pieces small enough that each tree carries `pieces_a_tree` of them (least_piece; 0:
    // none smaller than kLeastPiece, the default).
    void cut_pieces(double pieces_a_tree) { pieces_a_tree_ = pieces_a_tree; }

    void build();

    // The sink and forwarder of a site.
    int sink(int site) const;
    int forwarder(int site) const;

private:
    struct Stream {  // one share of one source: the pieces flowing along one tree
        int src = 0, holder = 0;
        SiteTree tree;
        std::vector<Span> pieces;
        bool chain_at_source = false;
        std::vector<double> arrive;  // per site: route latency from src + 1 us a hop
        std::vector<double> before;  // per piece: its share's bytes before it, over the rate
        std::vector<std::size_t> window;  // per site: WAN receives posted at a time
        int ret = -1;       // the site that sends the pieces back into the source site, or -1
        int src_sink = -1;  // the rank that takes them there
        double rate = 0;
        std::vector<std::size_t> after;  // streams it follows (add_tail)
        int runs = 0;                   // runs of pieces handed to one member each (hand_runs)
        int half = 0;                   // which of a hub site's two sinks takes it in (hub_sites)
        double key(std::size_t k, int site) const { return arrive[static_cast<std::size_t>(site)] + before[k]; }
        // The site a piece comes into `site` from (the return's into the source), or -1.
        int from(int site) const { return site == src ? ret : tree.parent[static_cast<std::size_t>(site)]; }
    };
    enum class Kind : std::uint8_t { TokenRecv, WanRecv, DirectSend, DirectRecv, ChainRecv, ChainSend, WanSend, TokenSend, LanRecv, LanSend, BackSend, BackRecv, StartSend, StartRecv };
    struct Event {
        double key;
        std::size_t j, k;
        Kind kind;
        int peer;
    };
    // Who sends piece k on from a site, takes it in there, and takes it back into the source site.
    int sender(const Stream& st, int site, std::size_t k) const {
        return site == st.src && st.holder >= 0 ? st.holder : fwd_of(st, site, k);
    }
    int sink_of(const Stream& st, int site, std::size_t k) const {
        if (hub_site(st, site)) return st.half ? second_sink(site) : sink(site);
        return st.runs ? handler(site, run_of(st, k)) : sink(site);
    }
    // A site where stream st's pieces go by the hub (hub_sites): members sink, forwarder, hub,
    // second sink, in that order (no gateway), then the others.
    bool hub_site(const Stream& st, int site) const;
    int hub_of(int site) const { return sites_.members[static_cast<std::size_t>(site)][2]; }
    int second_sink(int site) const { return sites_.members[static_cast<std::size_t>(site)][3]; }
    int fwd_of(const Stream& st, int site, std::size_t k) const { return st.runs ? handler(site, run_of(st, k)) : forwarder(site); }
    int src_sink_of(const Stream& st, std::size_t k) const { return st.runs ? handler(st.src, run_of(st, k)) : st.src_sink; }
    // out_runs.cpp: the members that take runs in turn at a site (the source's holder excepted),
    // the handler of run q there, a piece's run and a run's first piece, and my run events.
    std::vector<int> pool(int site) const;
    int handler(int site, std::size_t q) const;
    static std::size_t run_of(const Stream& st, std::size_t k);
    static std::size_t first_of(const Stream& st, std::size_t q);
    std::size_t token_after(const Stream& st, std::size_t k) const;
    double run_end(std::size_t q, int site) const;
    std::vector<StepId> run_got(std::size_t q, std::size_t j = kAllStreams) const;
    void run_events(std::size_t q, std::vector<Event>& out) const;
    void emit_run(const Event& e);
    void emit_lan(const Event& e);
    StepId run_gate(std::size_t j, std::size_t k) const;
    void cut_lan_pieces();
    double child_end(std::size_t q, int site) const;
    void back_events(std::size_t q, std::vector<Event>& out) const;
    static constexpr std::size_t kAllStreams = std::numeric_limits<std::size_t>::max();
    bool forwards(const Stream& st, int site) const { return !st.tree.children(site).empty(); }
    std::vector<int> chain(const Stream& st, int site) const;
    void return_into_source(Stream& st, double piece_time) const;
    Stream stream_of(int src, int holder, const SiteTree& t, std::vector<Span> pieces, bool chain_at_source, bool back,
                     double rate, std::uint64_t seg, double start) const;
    void follow(Stream& tail, double piece_time) const;
    std::vector<StepId> gate(const Stream& st) const;
    std::vector<std::size_t> hop_windows(const SiteTree& t, double rate, std::uint64_t seg) const;
    static constexpr std::size_t kAllPosted = std::numeric_limits<std::size_t>::max();
    void events_of(std::size_t j, std::vector<Event>& out) const;
    void emit(const Event& e);

    std::size_t first_channel_ = 0, channels_ = kChannels;
    double pieces_a_tree_ = 0;
    const Request& r_;
    Composer& c_;
    const Sites& sites_;
    const SiteGraph& g_;
    std::uint64_t seg_;
    int win_;
    int my_site_;
    std::vector<int> sink_, fwd_;
    std::vector<Stream> streams_;
    int runs_ = 0;                              // hand_runs
    bool hub_ = false;                          // hub_sites
    struct LanPiece {
        std::size_t j;
        Span span;
    };
    std::vector<std::vector<LanPiece>> lan_;     // [run]: the LAN chain's pieces
    std::vector<std::vector<StepId>> token_got_;  // [stream][piece]: my receive of the token that lets it in
    std::vector<std::vector<StepId>> back_got_;  // [run]: my receives of the children's word
    std::map<std::tuple<std::size_t, std::size_t, int>, StepId> start_got_;  // (stream, piece, site): the holder's go
    StepId lan_got_ = kNoStep;                  // my last LAN chain receive
    std::vector<std::vector<StepId>> wan_got_;  // [stream][piece]: my WAN receive of it
    std::vector<StepId> chain_got_;             // [stream]: my last chain receive (one posted at a time)
};

// The least default piece of a stream of `rate` whose trees carry their demand in `seconds` (its
// bytes over their summed rate), where each tree is to carry at least `pieces` pieces (0: no such
// count): kLeastPiece, or that tree's bytes over `pieces` between kLeastFinePiece and kLeastPiece.
// An allreduce's shard trees take kLeastBothPieces where their rates differ: a thin tree's
// stream, a few pieces of 8 KiB, got an equal share of every link it crossed and ran far ahead of
// its rate, holding up the thick trees on those links; with pieces of its rate's size its window
// keeps it near its rate. Trees of one rate (unit_trees.hpp) keep theirs: no tree of theirs is
// thin, and finer pieces there cost the simulations far more than they gain
// (docs/design/tree-packing.md, "The allreduce's pieces").
constexpr double kLeastBothPieces = 30;
constexpr std::uint64_t kLeastFinePiece = 1024;
std::uint64_t least_piece(double rate, double seconds, double pieces);

// The pieces of a stream of `rate` along `t` from `src`: (the first's bytes, the others'), `seg`
// each where given, else a route latency times the rate (at least `least`).
std::pair<std::uint64_t, std::uint64_t> piece_cut(const SiteGraph& g, const SiteTree& t, int src, double rate, Way way,
                                                  std::uint64_t seg, std::uint64_t least = kLeastPiece);

// The runs a broadcast of `bytes` along `trees` (of one rate, unit_trees.hpp) is handed in at each
// site (OutTrees::hand_runs; 1: none): the most, up to `most` (the largest site's members), of
// which each lasts long enough to cover what its handler does around it — the next run's receives
// posted three pieces ahead, the children's word back over the slowest hop, and the run's LAN
// chain at `lan_Bps` (0: unknown, no runs). Chosen on umesh8 / 12 / 16 of
// validation/random_wan_graphs.py (docs/design/handed-runs.md).
int handed_runs(const SiteGraph& g, const RootTrees& trees, std::uint64_t bytes, std::uint64_t seg, double lan_Bps, int most);

// A broadcast's last bytes along a shallower tree than the packing's (bcast_packed, add_tail):
// none (bytes 0) where that saves nothing. `trees` at the rates the network gives them.
struct BcastTail {
    SiteTree tree;
    std::uint64_t bytes = 0;
};
BcastTail bcast_tail(const SiteGraph& g, const RootTrees& trees, std::uint64_t bytes, std::uint64_t seg, std::uint64_t elem);

// A share of `len` bytes in pieces: the first of `first` bytes, then `seg` each, the last two
// seg / 2 and seg / 4 where there are enough and `small_last` (the last pieces cross every hop
// after the rest, so smaller ones end sooner) — wanstream.cpp's cut; every piece whole elements
// of `elem` bytes (len is).
std::vector<std::uint64_t> piece_lengths(std::uint64_t len, std::uint64_t first, std::uint64_t seg, std::uint64_t elem,
                                         bool small_last = true);

// Cuts `data` (spans, in order) into shares in proportion to `weights` and share k into pieces by
// piece_lengths(len, first_seg[k].first, first_seg[k].second), a piece that crosses a span's end
// cut in two there: pieces[k] of share k. Shares and pieces are whole elements of `elem` bytes
// (the spans are).
std::vector<std::vector<Span>> cut_shares(const std::vector<Span>& data, const std::vector<double>& weights,
                                          const std::vector<std::pair<std::uint64_t, std::uint64_t>>& first_seg,
                                          std::uint64_t elem);

}  // namespace gridcoll::detail
