#include "in_trees.hpp"

#include "out_trees.hpp"

#include <algorithm>
#include <cmath>

namespace gridcoll::detail {

InTrees::InTrees(const Request& r, Composer& c, const Sites& sites, const SiteGraph& g, int level, std::uint64_t seg,
                 int win, Span work, std::uint64_t in_base)
    : r_(r), c_(c), sites_(sites), g_(g), seg_(seg), win_(std::max(1, win)),
      my_site_(sites.site_of[static_cast<std::size_t>(r.rank)]), work_(work), in_base_(in_base) {
    for (const auto& m : sites.members) {
        const int gw = r.topology->gateway(m.front(), level);
        sink_.push_back(gw >= 0 ? gw : m.front());
        fwd_.push_back(gw >= 0 ? gw : m.size() > 1 ? m[1] : m.front());
    }
}

void InTrees::add_destination(int dst, const std::vector<InPiece>& data, const RootTrees& trees) {
    std::vector<SiteTree> list = trees.trees;
    if (list.empty()) list.push_back(SiteTree{std::vector<int>(static_cast<std::size_t>(sites_.count()), -1), 1.0});
    std::vector<double> w;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> first_seg;
    double total = 0, rate = 0;
    for (const InPiece& p : data) total += static_cast<double>(p.in.len);
    for (const SiteTree& t : list) rate += std::max(t.rate, 1e-9);
    for (const SiteTree& t : list) {
        w.push_back(std::max(t.rate, 1e-9));
        const std::uint64_t least = least_piece(w.back(), total / rate, pieces_a_tree_);
        first_seg.push_back(piece_cut(g_, t, dst, w.back(), Way::In, seg_, least));
    }
    // Cut the In spans; Out and owners follow (a piece never crosses a data item's end).
    std::vector<Span> ins;
    for (const InPiece& p : data) ins.push_back(p.in);
    const auto cut = cut_shares(ins, w, first_seg, r_.elem);
    for (std::size_t k = 0; k < list.size(); ++k) {
        if (cut[k].empty()) continue;
        Stream st{dst, list[k], {}, {}, {}, {}, static_cast<double>(first_seg[k].second) / w[k]};
        for (const Span& in : cut[k]) {
            const auto it = std::find_if(data.begin(), data.end(), [&](const InPiece& p) {
                return p.in.buf == in.buf && p.in.off <= in.off && in.off + in.len <= p.in.off + p.in.len;
            });
            st.pieces.push_back({in, Span{it->out.buf, it->out.off + (in.off - it->in.off), in.len}, it->owner});
        }
        st.ready.assign(static_cast<std::size_t>(sites_.count()), 0.0);
        st.window.assign(static_cast<std::size_t>(sites_.count()), static_cast<std::size_t>(win_));
        const std::vector<int> order = st.tree.top_down();
        for (auto v = order.rbegin(); v != order.rend(); ++v)  // children before parents
            if (const int p = st.tree.parent[static_cast<std::size_t>(*v)]; p >= 0) {
                const double l = g_.latency(*v, p);
                auto& rp = st.ready[static_cast<std::size_t>(p)];
                rp = std::max(rp, st.ready[static_cast<std::size_t>(*v)] + l + st.piece_time + 2e-6);
                auto& wv = st.window[static_cast<std::size_t>(p)];
                wv = std::max(wv, static_cast<std::size_t>(std::ceil(l / st.piece_time - 0.05)) + 1);
            }
        double bytes = 0;
        for (const InPiece& p : st.pieces) {
            st.before.push_back(bytes / w[k]);
            bytes += static_cast<double>(p.in.len);
        }
        streams_.push_back(std::move(st));
    }
}

int InTrees::end_of(const Stream& st, std::size_t k) const {
    return my_site_ == st.dst ? st.pieces[k].owner : forwarder(my_site_);
}

// My site's members in the order their contributions add up: the sink first, the end last.
std::vector<int> InTrees::chain_of(const Stream& st, std::size_t k) const {
    const std::vector<int>& m = sites_.members[static_cast<std::size_t>(my_site_)];
    const int end = end_of(st, k), sk = sink(my_site_);
    std::vector<int> c;
    if (sk != end) c.push_back(sk);
    for (int x : m)
        if (x != sk && x != end) c.push_back(x);
    c.push_back(end);
    return c;
}

Span InTrees::work_of(const Stream& st, std::size_t k) const {
    const InPiece& p = st.pieces[k];
    if (r_.rank == p.owner && my_site_ == st.dst) return p.out;
    return Span{work_.buf, work_.off + (p.in.off - in_base_), p.in.len};
}

Span InTrees::slot(std::size_t j, std::size_t k, std::size_t index) const {
    const Span& base = slots_[j][index];
    return Span{base.buf, base.off + share_at_[j][k], streams_[j].pieces[k].in.len};
}

void InTrees::events_of(std::size_t j, std::vector<Event>& out) const {
    const Stream& st = streams_[j];
    const int me = r_.rank, site = my_site_, sk = sink(site);
    const std::vector<int> kids = st.tree.children(site);
    const int parent = st.tree.parent[static_cast<std::size_t>(site)];
    for (std::size_t k = 0; k < st.pieces.size(); ++k) {
        const double ready = st.ready[static_cast<std::size_t>(site)] + st.before[k];
        const int end = end_of(st, k);
        const std::vector<int> ch = chain_of(st, k);
        if (std::find(ch.begin(), ch.end(), me) != ch.end()) out.push_back({st.before[k] + 1e-7, j, k, Kind::Chain, 0});
        if (me == sk)
            for (std::size_t i = 0; i < kids.size(); ++i)
                out.push_back({st.arrive(k, kids[i], g_.latency(kids[i], site)), j, k, Kind::ChildRecv, static_cast<int>(i)});
        if (!kids.empty() && me == sk) out.push_back({ready + 1e-7, j, k, Kind::Combine, 0});
        if (!kids.empty() && me == sk && sk != end) out.push_back({ready + 2e-7, j, k, Kind::AccumSend, 0});
        if (!kids.empty() && me == end && sk != end) out.push_back({ready + 2e-7, j, k, Kind::AccumRecv, 0});
        if (parent >= 0 && me == end) out.push_back({st.arrive(k, site, g_.latency(site, parent)), j, k, Kind::Up, 0});
    }
}

// My part in adding up my site's contributions to piece k: receive the partial sum, add mine,
// pass it on (the first sends its own; one alone copies it).
void InTrees::chain_step(const Stream& st, std::size_t j, std::size_t k) {
    const auto chn = static_cast<std::uint16_t>(first_channel_ + j % channels_);
    const std::vector<int> ch = chain_of(st, k);
    const auto pos = static_cast<std::size_t>(std::find(ch.begin(), ch.end(), r_.rank) - ch.begin());
    const Span in = st.pieces[k].in, work = work_of(st, k);
    if (ch.size() == 1) {
        c_.add(Step{Op::Copy, Order::DstLeft, 0, -1, in, work});
        return;
    }
    if (pos == 0) {
        c_.add(Step{Op::Send, Order::DstLeft, chn, ch[1], in, {}});
        return;
    }
    chain_got_[j] = c_.add(Step{Op::Recv, Order::DstLeft, chn, ch[pos - 1], {}, work}, {chain_got_[j]});
    c_.add(Step{Op::Reduce, Order::DstLeft, 0, -1, in, work});
    if (pos + 1 < ch.size()) c_.add(Step{Op::Send, Order::DstLeft, chn, ch[pos + 1], work, {}});
}

void InTrees::emit(const Event& e) {
    const Stream& st = streams_[e.j];
    const std::vector<int> kids = st.tree.children(my_site_);
    const int end = end_of(st, e.k);
    const auto chn = static_cast<std::uint16_t>(first_channel_ + e.j % channels_);  // each stream its own channel
    switch (e.kind) {
        case Kind::Chain: chain_step(st, e.j, e.k); break;
        case Kind::ChildRecv: {
            const auto i = static_cast<std::size_t>(e.index);
            const std::size_t w = st.window[static_cast<std::size_t>(my_site_)];
            auto& got = got_[e.j][i];
            got[e.k] = c_.add(Step{Op::Recv, Order::DstLeft, chn, forwarder(kids[i]), {}, slot(e.j, e.k, i)},
                              {e.k >= w ? got[e.k - w] : kNoStep});
            break;
        }
        case Kind::Combine:  // every child's sum is in: add them up (into the work where the sink ends)
            for (std::size_t i = 1; i < kids.size(); ++i)
                c_.add(Step{Op::Reduce, Order::DstLeft, 0, -1, slot(e.j, e.k, i), slot(e.j, e.k, 0)});
            if (sink(my_site_) == end) c_.add(Step{Op::Reduce, Order::DstLeft, 0, -1, slot(e.j, e.k, 0), work_of(st, e.k)});
            break;
        case Kind::AccumSend: c_.add(Step{Op::Send, Order::DstLeft, chn, end, slot(e.j, e.k, 0), {}}); break;
        case Kind::AccumRecv:
            c_.add(Step{Op::Recv, Order::DstLeft, chn, sink(my_site_), {}, slot(e.j, e.k, 0)});
            c_.add(Step{Op::Reduce, Order::DstLeft, 0, -1, slot(e.j, e.k, 0), work_of(st, e.k)});
            break;
        case Kind::Up:
            c_.add(Step{Op::Send, Order::DstLeft, chn, sink(st.tree.parent[static_cast<std::size_t>(my_site_)]), work_of(st, e.k), {}});
            break;
    }
}

void InTrees::build() {
    got_.assign(streams_.size(), {});
    chain_got_.assign(streams_.size(), kNoStep);
    slots_.assign(streams_.size(), {});
    share_at_.assign(streams_.size(), {});
    std::vector<Event> events;
    for (std::size_t j = 0; j < streams_.size(); ++j) {
        const Stream& st = streams_[j];
        std::uint64_t at = 0;
        for (const InPiece& p : st.pieces) {
            share_at_[j].push_back(at);
            at += p.in.len;
        }
        // Scratch for the children's sums (the sink) or their total (the end).
        const std::size_t kids = st.tree.children(my_site_).size();
        const bool sink_here = r_.rank == sink(my_site_);
        const std::size_t need = sink_here ? kids : (kids > 0 ? 1 : 0);
        for (std::size_t i = 0; i < need; ++i) slots_[j].push_back(c_.fresh_tmp(at));
        got_[j].assign(kids, std::vector<StepId>(st.pieces.size(), kNoStep));
        events_of(j, events);
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        if (a.key != b.key) return a.key < b.key;
        if (a.j != b.j) return a.j < b.j;
        if (a.k != b.k) return a.k < b.k;
        if (a.kind != b.kind) return a.kind < b.kind;
        return a.index < b.index;
    });
    for (const Event& e : events) emit(e);
}

}  // namespace gridcoll::detail
