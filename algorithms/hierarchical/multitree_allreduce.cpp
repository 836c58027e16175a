// Multi-tree WAN-parallel allreduce (gridcoll's own, on the cluster-of-clusters view of [P000]
// Kielmann, Bal, Gorlatch, IPDPS 2000 and [P001] Karonis et al., IPDPS 2000): C shares, share j
// homed at site j; c(i, j, k) = the coordinator of segment k of share j in site i (Groups: with
// shares of several segments, group A for the first half, B for the rest).
//   1. in every site, the segment reduced along a chain ending at c(i, j, k)   in-site reduce
//   2. c(i, j, k) --WAN--> c(j, j, k), which combines the C site results      reduce-scatter
//   3. c(j, j, k) --WAN--> c(i, j, k) for every other site                    allgather
//   4. c(i, j, k) --> a chain through site i                                  in-site broadcast
// A site's chains are rings and every rank takes its items nearest the chain's start first, so
// steps 1 and 4 are ring reduce-scatters and allgathers; B's segments are reduced round B (fed
// by A's inputs) while A is on the WAN, and step 4 mirrors the broadcast's groups.
// Cost: in a site (n - 1)/n M / B_l twice, about half hidden behind the WAN; on the WAN
// 2 M / (C B_w) + L_w per segment round, against the bound L_w + 2 M / (C B_w). Commutative
// operations only (sites combine in site order, not rank order). Measurements and design
// history: docs/design/multitree.md.
//
// References: [P000] §3, [P001] §3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "multitree_parts.hpp"
#include "sites.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace gridcoll::detail {

namespace {

using namespace multitree;

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

// One rank's allreduce schedule, phase by phase.
class AllreduceBuilder {
public:
    AllreduceBuilder(const Request& r, Schedule& s)
        : r_(r), s_(s), sites_(sites_at(*r.topology, r.params.cluster_level)), C_(sites_.count()),
          my_site_(sites_.site_of[static_cast<std::size_t>(r.rank)]), mine_(sites_.members[static_cast<std::size_t>(my_site_)]),
          n_(static_cast<int>(mine_.size())), my_index_(index_in(mine_, r.rank)),
          shares_(r.bytes, C_, r.elem,
                  r.params.equal_shares || C_ < 2
                      ? std::vector<double>{}
                      : allreduce_share_weights(site_bandwidths(*r.topology, sites_, r.params.cluster_level))),
          acks_(n_ >= 6),  // rings of three or more in both groups (site_windows)
          out_(site_windows(s, sites_, my_site_, r.params.wan_window, acks_)) {
        make_items();
        for (const auto& m : sites_.members) groups_.emplace_back(m, rounds_);
        g_ = &groups_[static_cast<std::size_t>(my_site_)];
        in_a_ = !g_->index_in_b(my_index_);
        my_place_ = g_->place(my_index_);
        find_feeders();
        // Scratch: [0, M) a chain's incoming partials, then a slot of M per feeder (at the offsets
        // of the data); then, at a share's home coordinator, one slot per other site.
        homes_at_ = r.bytes * (1 + feeders_.size());
        s.need_tmp(homes_at_ + static_cast<std::uint64_t>(C_ - 1) * shares_.each);
    }

    // Phases 1 and 2 for every item, then 3 and 4: a link's FIFO never holds a broadcast
    // message in front of a reduction message that the broadcast waits for.
    void build() {
        reduce_group_a();
        reduce_group_b();
        wan_allgather();
        broadcast_in_site();
    }

private:
    struct Item {
        int j;
        std::uint64_t k;
        Span x;
        StepId last_send_from_out = kNoStep;  // the WAR guard for the final value's arrival in Out
        StepId result = kNoStep;              // at the home coordinator: the share's value
        StepId value = kNoStep;               // at a coordinator: the step that brings the value
    };

    void make_items() {
        const std::uint64_t seg = even_segment(shares_.each, r_.params.segment, r_.elem);
        for (int j = 0; j < C_; ++j) rounds_ = std::max(rounds_, Segments(shares_.length(j), seg, r_.elem).count());
        for (std::uint64_t k = 0; k < rounds_; ++k)
            for (int j = 0; j < C_; ++j) {
                const Segments segs(shares_.length(j), seg, r_.elem);
                if (k < segs.count()) items_.push_back({j, k, segs.span(Buf::Out, k, shares_.offset(j))});
            }
    }

    // The A members that feed me their inputs of B's segments (phase 1): my A partner, and the
    // last A member when it has no partner of its own; the one I feed.
    void find_feeders() {
        if (!in_a_) {
            feeders_.push_back(mine_[static_cast<std::size_t>(my_index_ - 1)]);
            if (n_ % 2 == 1 && my_index_ == n_ - 2) feeders_.push_back(mine_[static_cast<std::size_t>(n_ - 1)]);
        } else if (!g_->b.empty()) {
            feed_to_ = mine_[static_cast<std::size_t>(my_index_ + 1 < n_ ? my_index_ + 1 : my_index_ - 1)];
        }
    }

    // Segment k of share j enters and leaves site i through coord(i, j, k).
    int coord(int site, int j, std::uint64_t k) const { return groups_[static_cast<std::size_t>(site)].coordinator(j, k); }
    int site_index(const Item& it) const { return index_in(mine_, coord(my_site_, it.j, it.k)); }
    int group_place(const Item& it) const { return g_->place(site_index(it)); }

    // My items of one group, by the place in their chains of `place(item)`, then by where they
    // lie in the message: the chains of a ring all run the same way, so this is the ring
    // reduce-scatter and allgather order, and the two ends of a link order their messages alike.
    template <class Place>
    std::vector<Item*> sorted(bool group_b, const Place& place) {
        std::vector<std::tuple<int, std::uint64_t, std::size_t>> keys;
        for (std::size_t i = 0; i < items_.size(); ++i)
            if (g_->in_b(items_[i].k) == group_b) keys.emplace_back(place(items_[i]), items_[i].x.off, i);
        std::sort(keys.begin(), keys.end());
        std::vector<Item*> v;
        for (const auto& key : keys) v.push_back(&items_[std::get<2>(key)]);
        return v;
    }

    StepId wan_step(const Item& it, StepId id) {
        wan_.push_back(id);
        if (!g_->in_b(it.k)) wan_a_.push_back(id);
        return id;
    }

    // The end of phase 1 at the coordinator: phase 2, to the share's home or combining there.
    void reduce_scatter(Item& it, StepId acc) {
        if (my_site_ != it.j) {
            it.last_send_from_out = wan_step(it, out_.send(coord(it.j, it.j, it.k), it.x, {acc}));
            return;
        }
        int slot = 0;
        for (int i = 0; i < C_; ++i) {
            if (i == it.j) continue;
            const Span part{Buf::Tmp, homes_at_ + static_cast<std::uint64_t>(slot++) * shares_.each + (it.x.off - shares_.offset(it.j)),
                            it.x.len};
            const StepId got = wan_step(it, s_.recv(coord(i, it.j, it.k), part));
            acc = s_.reduce(part, it.x, Order::DstLeft, {got, acc});
        }
        it.result = acc;
    }

    // One hop of a reduce chain: my input, the feeders', the partial from `prev`; then on to
    // `next`, or this is the coordinator.
    void reduce_hop(Item& it, const ChainPos& pos, const std::vector<StepId>& fed) {
        const Span in{Buf::In, it.x.off, it.x.len};
        if (pos.prev < 0 && fed.empty() && pos.next >= 0) {
            out_.send(pos.next, in, {});  // a chain's first rank forwards its own input
            return;
        }
        StepId acc = s_.copy(in, it.x);
        for (std::size_t f = 0; f < fed.size(); ++f) {
            const Span part{Buf::Tmp, r_.bytes * (1 + f) + it.x.off, it.x.len};
            acc = s_.reduce(part, it.x, Order::DstLeft, {fed[f], acc});
        }
        if (pos.prev >= 0) {
            const Span tmp{Buf::Tmp, it.x.off, it.x.len};
            acc = s_.reduce(tmp, it.x, Order::DstLeft, {site_recv(s_, acks_, pos.prev, tmp), acc});
        }
        if (pos.next >= 0)
            it.last_send_from_out = out_.send(pos.next, it.x, {acc});
        else
            reduce_scatter(it, acc);
    }

    // Phase 1, A's segments: a chain through the whole site that ends at the coordinator.
    void reduce_group_a() {
        const auto chain = [&](const Item& it) { return chain_pos(mine_, (site_index(it) + 1) % n_, my_index_); };
        for (Item* it : sorted(false, [&](const Item& i) { return chain(i).offset; })) reduce_hop(*it, chain(*it), {});
    }

    // Phase 1, B's segments: a chain through B that ends at the coordinator, into which every A
    // member feeds its input at the B member after it (the last A member of an odd-sized site at
    // the one before it). This runs while A sends its segments over the WAN; the feeds follow the
    // B member's chain order.
    void reduce_group_b() {
        if (g_->b.empty()) return;
        const int nb = static_cast<int>(g_->b.size());
        const auto b_chain = [&](const Item& it, int place) { return chain_pos(g_->b, (group_place(it) + 1) % nb, place); };
        const int fed_place = in_a_ ? g_->place(index_in(mine_, feed_to_)) : my_place_;
        for (Item* it : sorted(true, [&](const Item& i) { return b_chain(i, fed_place).offset; })) {
            if (in_a_) {
                out_.send(feed_to_, Span{Buf::In, it->x.off, it->x.len}, {});
                continue;
            }
            std::vector<StepId> fed;
            for (std::size_t f = 0; f < feeders_.size(); ++f)
                fed.push_back(site_recv(s_, acks_, feeders_[f], Span{Buf::Tmp, r_.bytes * (1 + f) + it->x.off, it->x.len}));
            reduce_hop(*it, b_chain(*it, my_place_), fed);
        }
    }

    // Phase 3, the WAN allgather, at the coordinators.
    void wan_allgather() {
        for (Item& it : items_) {
            if (coord(my_site_, it.j, it.k) != r_.rank) continue;
            if (my_site_ == it.j) {
                it.value = it.result;
                for (int i = 0; i < C_; ++i)
                    if (i != it.j) wan_step(it, out_.send(coord(i, it.j, it.k), it.x, {it.value}));
            } else {
                it.value = wan_step(it, s_.recv(coord(it.j, it.j, it.k), it.x, {it.last_send_from_out}));
            }
        }
    }

    // Phase 4, the in-site broadcast, as the k = 1 broadcast's phase 2 (site_rings): A's segments
    // round A from the coordinator and from every A member to its B partner, once A is done with
    // their WAN steps, while B still receives its own; B's segments round the whole site, once
    // both ends of a link are done with the WAN.
    void broadcast_in_site() {
        const StepId a_done = join(s_, wan_a_), wan_done = join(s_, wan_);
        const GroupReady ready = group_ready(s_, mine_, my_index_, *g_, a_done, wan_done);
        const auto a_chain = [&](const Item& it, int place) { return chain_pos(g_->a, group_place(it), place); };
        const int partner = g_->partner(my_index_) >= 0 ? mine_[static_cast<std::size_t>(g_->partner(my_index_))] : -1;
        for (Item* it : sorted(false, [&](const Item& i) { return a_chain(i, my_place_).offset; })) {
            if (!in_a_) {
                site_recv(s_, acks_, mine_[static_cast<std::size_t>(my_index_ - 1)], it->x, {it->last_send_from_out});
                continue;
            }
            const ChainPos pos = a_chain(*it, my_place_);
            const StepId got = pos.prev >= 0 ? site_recv(s_, acks_, pos.prev, it->x, {it->last_send_from_out}) : it->value;
            if (pos.next >= 0) out_.send(pos.next, it->x, {got, a_done, ready.a->from(pos.next)});
            if (partner >= 0) out_.send(partner, it->x, {got, a_done});
        }
        const auto ring = [&](const Item& it) { return chain_pos(mine_, site_index(it), my_index_); };
        for (Item* it : sorted(true, [&](const Item& i) { return ring(i).offset; })) {
            const ChainPos pos = ring(*it);
            const StepId got = pos.prev >= 0 ? site_recv(s_, acks_, pos.prev, it->x, {it->last_send_from_out}) : it->value;
            if (pos.next >= 0) out_.send(pos.next, it->x, {got, wan_done, ready.site->from(pos.next)});
        }
    }

    const Request& r_;
    Schedule& s_;
    const Sites sites_;
    const int C_, my_site_;
    const std::vector<int>& mine_;
    const int n_, my_index_;
    const Shares shares_;
    const bool acks_;
    WindowedSends out_;
    std::vector<Item> items_;
    std::uint64_t rounds_ = 0;
    std::vector<Groups> groups_;
    const Groups* g_ = nullptr;
    bool in_a_ = true;
    int my_place_ = 0;
    std::vector<int> feeders_;
    int feed_to_ = -1;
    std::uint64_t homes_at_ = 0;
    std::vector<StepId> wan_a_, wan_;  // my WAN steps: for A's segments, all
};

}  // namespace

Schedule allreduce_multitree(const Request& r) {
    Schedule s(r.rank, r.size);
    AllreduceBuilder(r, s).build();
    return s;
}

}  // namespace gridcoll::detail
