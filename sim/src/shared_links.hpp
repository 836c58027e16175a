// Links shared fairly by the messages on them (SimOptions::shared_link_levels): while n
// messages are on a link, each progresses at 1/n of the link's rate (processor sharing), as
// SimGrid's max-min sharing divides a link between its flows. A message that alone would hold
// the link for `work` seconds leaves it when it has received that much service.
//
// Kept with a virtual clock per link: v advances by dt / n while n messages are on it, a
// message entering at v0 is done when v reaches v0 + work, so the messages leave in order of
// that tag (a min-heap) and the next departure is at now + (tag - v) n. Adding a message moves
// that time, so each link has a version: the event of an older version is stale.
//
// Cross traffic (set_cross_traffic(x), SimGrid's network/crosstraffic): a message on a link
// also takes x of a share of the link's other direction (TCP's acknowledgements; SimGrid
// charges 0.05). While a link carries n messages and its other direction m, each progresses
// at 1/(n + x m) of the rate; a change of m moves the link's next departure as a change of n
// does, so both directions' versions change.
//
// Every message is its own share, also two of one (sender, receiver) pair: a sender with two
// in flight to one peer gets both through at half speed each, as in SimGrid (a TCP connection
// would send them one after the other). MPI's order is kept: a message done before an earlier
// one of its pair (a smaller one that entered later) stops taking a share and leaves with it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "link_flow.hpp"

namespace gridcoll::sim::detail {

class SharedLinks {
public:
    using Flow = LinkFlow;

    void set_cross_traffic(double x) { cross_ = x; }

    // The index of the link named `key`, whose other direction is named `reverse` (both
    // created on first use).
    std::uint32_t find(std::uint64_t key, std::uint64_t reverse) {
        const auto it = index_.find(key);
        if (it != index_.end()) return it->second;
        const auto l = static_cast<std::uint32_t>(links_.size());
        index_.emplace(key, l);
        links_.emplace_back();
        if (reverse == key) return l;
        index_.emplace(reverse, l + 1);
        links_.emplace_back();
        links_[l].rev = l + 1;
        links_[l + 1].rev = l;
        links_[l].paired = links_[l + 1].paired = true;
        return l;
    }

    // The link's other direction, when its load moves that one's departures (cross traffic).
    bool coupled(std::uint32_t l) const { return cross_ > 0 && links_[l].paired; }
    std::uint32_t reverse(std::uint32_t l) const { return links_[l].rev; }

    // Puts `f` on link l at `now`, needing `work` seconds of the link alone. The link's next
    // departure changes (and, if coupled(l), its reverse's): schedule an event for
    // (l, version(l)) at next(l).
    void add(std::uint32_t l, double now, double work, Flow f) {
        f.seq = seq_++;
        pairs_.enter(f);
        Link& k = links_[l];
        advance(k, now);
        touch_reverse(l, now);
        f.tag = k.v + work;
        k.heap.push_back(f);
        std::push_heap(k.heap.begin(), k.heap.end(), later);
        ++k.version;
    }

    // When `f`, gone from its link, arrives, given that alone it would at `at`: not before the
    // message of its pair that left before it (one connection delivers in order; the time after
    // the link can differ with the size, and a pair's held messages leave together).
    double arrival(const Flow& f, double at) { return pairs_.arrival(f, at); }

    // The event (l, version) at `now`: false when stale. Otherwise the messages that leave now
    // are appended to `done` in their pairs' order (possibly none: a message done before an
    // earlier one of its pair waits for it); if messages remain, schedule the next event for
    // (l, version(l)) at next(l), and if coupled(l) the reverse's as after add().
    bool depart(std::uint32_t l, std::uint32_t version, double now, std::vector<Flow>& done) {
        Link& k = links_[l];
        if (version != k.version || k.heap.empty()) return false;
        advance(k, now);
        touch_reverse(l, now);
        do {
            std::pop_heap(k.heap.begin(), k.heap.end(), later);
            const Flow f = k.heap.back();
            k.heap.pop_back();
            pairs_.leave(f, done);
        } while (!k.heap.empty() && k.heap.front().tag - k.v <= 1e-12 * std::max(1.0, k.v));
        ++k.version;
        return true;
    }

    bool busy(std::uint32_t l) const { return !links_[l].heap.empty(); }
    std::uint32_t version(std::uint32_t l) const { return links_[l].version; }
    double next(std::uint32_t l) const {
        const Link& k = links_[l];
        return k.t + std::max(0.0, k.heap.front().tag - k.v) * load(k);
    }

private:
    struct Link {
        double v = 0, t = 0;  // virtual time v at real time t
        std::uint32_t version = 0;
        std::uint32_t rev = 0;   // the other direction, if paired
        bool paired = false;
        std::vector<Flow> heap;  // min-heap on tag
    };
    static bool later(const Flow& a, const Flow& b) { return a.tag > b.tag || (a.tag == b.tag && a.seq > b.seq); }
    // The shares the link's messages divide it into (each progresses at 1/load of its rate).
    double load(const Link& k) const {
        const double n = static_cast<double>(k.heap.size());
        return cross_ > 0 && k.paired ? n + cross_ * static_cast<double>(links_[k.rev].heap.size()) : n;
    }
    void advance(Link& k, double now) {
        if (!k.heap.empty()) k.v += (now - k.t) / load(k);
        k.t = now;
    }
    // Link l's load is about to change: its reverse's clock runs to now at the old load, and
    // its pending departure event becomes stale.
    void touch_reverse(std::uint32_t l, double now) {
        if (!coupled(l)) return;
        Link& r = links_[links_[l].rev];
        advance(r, now);
        ++r.version;
    }

    std::vector<Link> links_;
    std::unordered_map<std::uint64_t, std::uint32_t> index_;
    PairOrder pairs_;
    std::uint64_t seq_ = 0;
    double cross_ = 0;
};

}  // namespace gridcoll::sim::detail
