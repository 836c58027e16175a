// The event simulator's messages: the level and costs of a message, shared links, arrival
// through the incoming port, FIFO matching, and rendezvous (simulator_engine.hpp). Inline: the event loop
// (simulator.cpp) and the start at time 0 (simulator_build.cpp) call them per event.
#pragma once

#include "simulator_engine.hpp"

namespace gridcoll::sim::detail {

inline int Simulator::level(int a, int b) const {
    if (!map_) return 0;
    const int l = map_->common_level(a, b);
    if (l < 0)
        throw Error("simulate: ranks " + std::to_string(a) + " and " + std::to_string(b) +
                    " share no topology level");
    return l;
}

// The costs of a message of `bytes` at level lv between ranks a and b: their clusters'
// pair's parameters, else their level-lv cluster's, else the level's (PairClasses).
inline std::uint32_t Simulator::cost_id(int lv, int a, int b, std::uint64_t bytes) {
    if ((pairs_.pair_levels >> lv) & 1u) {
        const auto it = pairs_.pair.find(PairClasses::key(lv, map_->cluster(a, lv + 1), map_->cluster(b, lv + 1)));
        if (it != pairs_.pair.end()) return costs_.id(lv, it->second, bytes);
    }
    return port_id(lv, a, bytes);
}

// ... of rank r's port at level lv (its level-lv cluster's, else the level's).
inline std::uint32_t Simulator::port_id(int lv, int r, std::uint64_t bytes) {
    if ((pairs_.cluster_levels >> lv) & 1u) {
        const auto it = pairs_.cluster.find(PairClasses::key(lv, map_->cluster(r, lv), 0));
        if (it != pairs_.cluster.end()) return costs_.id(lv, it->second, bytes);
    }
    return costs_.id(lv, bytes);
}

// The shared link between a's and b's clusters of level lv + 1 (see
// SimOptions::shared_link_levels); a rank without a cluster there is its own.
inline std::uint32_t Simulator::link(int lv, int a, int b) {
    auto id = [&](int r) {
        const int c = map_->cluster(r, lv + 1);
        return static_cast<std::uint64_t>(c >= 0 ? c : P_ + r);
    };
    const std::uint64_t level = static_cast<std::uint64_t>(lv) << 58;
    return links_.find(level | (id(a) << 29) | id(b), level | (id(b) << 29) | id(a));
}

// Link l's next departure moved (and with cross traffic its other direction's).
inline void Simulator::reschedule(std::uint32_t l) {
    if (links_.busy(l)) push(links_.next(l), eLinkDone, static_cast<std::int32_t>(l), links_.version(l));
    if (links_.coupled(l)) {
        const std::uint32_t r = links_.reverse(l);
        if (links_.busy(r)) push(links_.next(r), eLinkDone, static_cast<std::int32_t>(r), links_.version(r));
    }
}

inline const std::vector<int>* Simulator::route(int lv, int a, int b) const {
    if (lv != routed_level_) return nullptr;
    const int sa = map_->cluster(a, lv + 1), sb = map_->cluster(b, lv + 1);
    if (sa < 0 || sb < 0 || sa == sb) return nullptr;
    const std::vector<int>* r = net_->route(sa, sb);
    return r && !r->empty() ? r : nullptr;
}

inline void Simulator::reschedule_routed() {
    if (routed_.busy()) push(routed_.next(), eLinkDone, static_cast<std::int32_t>(kRouted), routed_.version());
}

// Send step `step` of rank src puts its message on the shared link (or its route) now.
inline void Simulator::enter_link(int src, int dst, std::uint32_t cost, std::uint32_t step, std::uint32_t recv) {
    const Cost& c = costs_[cost];
    LinkFlow f;
    f.src = src;
    f.dst = dst;
    f.cost = cost;
    f.step = step;
    f.recv = recv;
    if (const std::vector<int>* r = route(c.level, src, dst)) {
        routed_.add(now_, r, routed_.bytes_of(*r, c.out_gap), f);
        reschedule_routed();
        return;
    }
    const std::uint32_t l = link(c.level, src, dst);
    links_.add(l, now_, c.out_gap, f);
    reschedule(l);
}

// Messages leave link l (or their routes) now (unless the event is stale) and arrive L later.
inline void Simulator::leave_link(std::uint32_t l, std::uint32_t version) {
    left_.clear();
    const bool routed = l == kRouted;
    if (!(routed ? routed_.depart(version, now_, left_) : links_.depart(l, version, now_, left_))) return;
    for (const auto& f : left_) {
        const Cost& c = costs_[f.cost];
        // PLogP: transit - gap = L. (LogGP: o + L - g, which may be negative: then on leaving.)
        const double alone = now_ + std::max(0.0, c.transit - c.out_gap);
        const double at = routed ? routed_.arrival(f, alone) : links_.arrival(f, alone);
        push(at, eArrive, f.src, static_cast<std::uint32_t>(f.dst), (static_cast<std::uint64_t>(f.recv) << 32) | f.cost);
        if (synchronous(c.bytes)) complete_at(f.src, state_[static_cast<std::size_t>(f.src)], f.step, at);
    }
    if (routed) reschedule_routed();
    else reschedule(l);
}

// A message's nominal arrival: pass it through the receiver's incoming port.
// (`msg`: the Costs index, and with rendezvous the matched receive step above bit 32.)
inline void Simulator::arrive(int src, int dst, std::uint64_t msg) {
    const auto cost = static_cast<std::uint32_t>(msg);
    RankHdr* h = ensure_built(dst, src);
    if (opt_.receive_gap) {
        const int lv = costs_[cost].level;
        const std::uint64_t bytes = costs_[cost].bytes;
        // After a shared link the receiver's port is its own network's (see post()).
        const double gap = costs_[shared_level(lv) ? port_id(lv + 1, dst, bytes) : cost].in_gap;
        const double A = std::max(now_, h->in_free + gap);
        h->in_free = A;
        if (A > now_) {
            push(A, eArrived, src, static_cast<std::uint32_t>(dst), msg);
            return;
        }
    }
    deliver(src, dst, msg);
}

// The message from `src` has fully arrived at `dst` (now): match it (with rendezvous it
// was matched at its envelope).
inline void Simulator::deliver(int src, int dst, std::uint64_t msg) {
    const auto cost = static_cast<std::uint32_t>(msg);
    RankHdr* h = ensure_built(dst, src);
    // (Without rendezvous the message carries its channel where the matched receive would be.)
    const std::uint32_t i = opt_.rendezvous ? static_cast<std::uint32_t>(msg >> 32) : match(src, dst, h, cost, static_cast<int>(msg >> 32));
    PStep& p = steps_of(h)[i];
    p.flags |= fArrived;
    if (p.flags & fPosted) claim_recv(dst, h, i, cost);
}

// The receive at `dst` (header h) that the next message from `src` on `channel` meets (FIFO per
// pair and channel).
inline std::uint32_t Simulator::match(int src, int dst, RankHdr* h, std::uint32_t cost, int channel) {
    const std::uint64_t bytes = costs_[cost].bytes;
    const int key = src * kChannels + channel;
    RecvQ* rq = rq_of(h);
    RecvQ* q = rq;
    if (h->n_rq > 4)
        q = std::lower_bound(rq, rq + h->n_rq, key, [](const RecvQ& x, int p) { return x.peer < p; });
    else
        while (q != rq + h->n_rq && q->peer < key) ++q;
    if (q == rq + h->n_rq || q->peer != key || q->next == kNone)
        throw Error("simulate: rank " + std::to_string(src) + " sends more messages to rank " +
                    std::to_string(dst) + " than rank " + std::to_string(dst) + " receives from it");
    const std::uint32_t i = q->next;
    PStep& p = steps_of(h)[i];
    q->next = p.next_q;
    if (p.bytes != bytes)
        throw Error("simulate: rank " + std::to_string(src) + " sends " + std::to_string(bytes) +
                    " bytes to rank " + std::to_string(dst) + " whose matching receive (step " + std::to_string(i) +
                    ") expects " + std::to_string(static_cast<std::uint64_t>(p.bytes)));
    return i;
}

// The envelope of send step `step` (on `channel`) of `src` reaches `dst` now: it matches its
// receive, and the transfer starts now, or when the receive is posted (post()) if it is not yet.
inline void Simulator::envelope(int src, int dst, std::uint32_t cost, std::uint32_t step, int channel) {
    RankHdr* h = ensure_built(dst, src);
    const std::uint32_t i = match(src, dst, h, cost, channel);
    PStep& p = steps_of(h)[i];
    if (!(p.flags & fPosted)) {
        p.flags |= fSendWaits;
        waiting_.emplace(waiting_key(dst, i), WaitingSend{cost, step});
        return;
    }
    start_transfer(src, dst, cost, step, i);
}

// The message of send step `step` of `src`, matched to receive step `recv` of `dst`, starts
// its transfer now (over a shared link, or straight to its nominal arrival).
inline void Simulator::start_transfer(int src, int dst, std::uint32_t cost, std::uint32_t step, std::uint32_t recv) {
    const Cost& c = costs_[cost];
    if (shared_level(c.level)) {
        enter_link(src, dst, cost, step, recv);
        return;
    }
    const double at = now_ + c.transit;
    push(at, eArrive, src, static_cast<std::uint32_t>(dst), (static_cast<std::uint64_t>(recv) << 32) | cost);
    if (synchronous(c.bytes)) complete_at(src, state_[static_cast<std::size_t>(src)], step, at);
}

}  // namespace gridcoll::sim::detail
