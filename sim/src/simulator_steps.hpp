// The event simulator's steps: completion now or later, readiness, posting in queue order, and
// receives claiming the CPU in the PLogP order (simulator_engine.hpp). Inline: the event loop
// (simulator.cpp) and the start at time 0 (simulator_build.cpp) call them per event.
#pragma once

#include "simulator_engine.hpp"

namespace gridcoll::sim::detail {

// Step i of rank r completes at time t (now, or later). A step nothing depends on needs no
// event: it is done now, and its rank finishes at the latest such time.
inline void Simulator::complete_at(int r, RankHdr* h, std::uint32_t i, double t) {
    if (t <= now_) {
        complete_now(r, i);
        return;
    }
    PStep& p = steps_of(h)[i];
    if (p.nsucc != 0) {
        push(t, eStepDone, r, i, 0);
        return;
    }
    p.flags |= fDone;
    ++res_.counters.steps;
    h->last_done = std::max(h->last_done, t);
    if (--h->remaining == 0) finish_rank(r);
}

inline void Simulator::drain() {
    while (fifo_head_ < fifo_.size()) {
        const auto [r, i] = fifo_[fifo_head_++];
        finish_step(r, i);
    }
    fifo_.clear();
    fifo_head_ = 0;
}

inline void Simulator::finish_step(int r, std::uint32_t i) {
    RankHdr* h = state_[static_cast<std::size_t>(r)];
    PStep* ps = steps_of(h);
    PStep& p = ps[i];
    p.flags |= fDone;
    ++res_.counters.steps;
    if (opt_.bench_timing && r == req_.root && i == bench_clock_start(P_)) clock_start_ = now_;
    if (p.nsucc == 1) {
        const std::uint32_t j = p.succ;
        if (--ps[j].pending == 0) make_ready(r, h, j);
    } else if (p.nsucc > 1) {
        const std::uint32_t* list = succ_of(h) + p.succ;
        std::uint32_t count = p.nsucc;
        if (count == 255) count = *list++;
        for (std::uint32_t k = 0; k < count; ++k) {
            const std::uint32_t j = list[k];
            if (--ps[j].pending == 0) make_ready(r, h, j);
        }
    }
    if (--h->remaining == 0) finish_rank(r);
}

inline void Simulator::finish_rank(int r) {
    const auto idx = static_cast<std::size_t>(r);
    const double t = std::max(now_, state_[idx]->last_done);
    release(state_[idx]);
    state_[idx] = &done_;
    --active_;
    ++finished_;
    if (opt_.per_rank_finish) res_.finish[idx] = t;
    if (t > best_ || (t == best_ && r < best_rank_)) {
        best_ = t;
        best_rank_ = r;
    }
}

inline void Simulator::make_ready(int r, RankHdr* h, std::uint32_t i) {
    PStep& p = steps_of(h)[i];
    p.flags |= fReady;
    switch (p.op) {
        case kCopy:
            complete_now(r, i);
            break;
        case kReduce: {
            const double start = std::max(now_, h->cpu_free);
            const double end = start + opt_.gamma * static_cast<double>(p.bytes);
            h->cpu_free = end;
            complete_at(r, h, i, end);
            break;
        }
        default:
            if (!(p.flags & fBlocked)) post_chain(r, h, i);
            break;
    }
}

// Posts step i and every ready step queued behind it.
inline void Simulator::post_chain(int r, RankHdr* h, std::uint32_t i) {
    PStep* ps = steps_of(h);
    for (;;) {
        const std::uint32_t j = ps[i].next_q;  // read first: post() may reuse the link
        post(r, h, i);
        if (j == kNone) return;
        ps[j].flags = ps[j].flags & static_cast<std::uint8_t>(~fBlocked);
        if (!(ps[j].flags & fReady)) return;
        i = j;
    }
}

inline void Simulator::post(int r, RankHdr* h, std::uint32_t i) {
    PStep& p = steps_of(h)[i];
    p.flags |= fPosted;
    if (p.op == kSend) {
        const int lv = level(r, p.peer);
        const bool shared = shared_level(lv);
        // Over a shared link the sender's port is its own network's (level lv + 1): the
        // link, not the port, carries the message for level lv's gap.
        const std::uint32_t port = shared ? port_id(lv + 1, r, p.bytes) : 0;
        const std::uint32_t id = cost_id(lv, r, p.peer, p.bytes);
        const Cost& c = costs_[id];
        const double s = std::max(now_, std::max(h->cpu_free, h->out_free));
        h->cpu_free = s + c.send_cpu;
        h->out_free = s + (shared ? costs_[port].out_gap : c.out_gap);
        ++res_.counters.messages;
        res_.counters.bytes += p.bytes;
        if (opt_.rendezvous) {
            // The envelope reaches the receiver at s (envelope()), which starts the transfer.
            push(s, eEnvelope, r, static_cast<std::uint32_t>(p.peer), send_ref(i, static_cast<unsigned>(p.channel)) | id);
            if (!synchronous(c.bytes)) complete_at(r, h, i, s + c.send_cpu);
            return;
        }
        if (shared) {
            // Through the queue even at s = now: events of one time leave in creation
            // order, so a pair's messages enter the link in the order they were posted.
            push(s, eLinkEnter, r, static_cast<std::uint32_t>(p.peer), send_ref(i, static_cast<unsigned>(p.channel)) | id);
            if (!synchronous(c.bytes)) complete_at(r, h, i, s + c.send_cpu);
            return;
        }
        push(s + c.transit, eArrive, r, static_cast<std::uint32_t>(p.peer), (static_cast<std::uint64_t>(p.channel) << 32) | id);
        complete_at(r, h, i, synchronous(c.bytes) ? s + c.transit : s + c.send_cpu);
        return;
    }
    // Receive: remember the post time; claim the CPU if the message is already in.
    p.t = now_;
    if (p.flags & fArrived) claim_recv(r, h, i, cost_id(level(p.peer, r), p.peer, r, p.bytes));
    if (p.flags & fSendWaits) {  // its message waited for this post (rendezvous)
        p.flags &= static_cast<std::uint8_t>(~fSendWaits);
        const auto it = waiting_.find(waiting_key(r, i));
        const WaitingSend w = it->second;
        waiting_.erase(it);
        start_transfer(p.peer, r, w.cost, w.step, i);
    }
}

// Receive step i of rank r is posted and its message has arrived (by now): it claims the
// CPU now if the CPU is idle and no receive waits before it; otherwise it joins the rank's
// FIFO of receives waiting for the CPU, served by a RecvRetry event at the time the CPU
// becomes free (work claimed at that instant by steps becoming ready then goes first, as
// their events are older). One RecvRetry event per rank at a time.
inline void Simulator::claim_recv(int r, RankHdr* h, std::uint32_t i, std::uint32_t cost) {
    if (h->wait_head == kNone && h->cpu_free <= now_) {
        claim_now(r, h, i, cost, false);
        return;
    }
    PStep* ps = steps_of(h);
    if (h->wait_head == kNone)
        h->wait_head = i;
    else
        ps[h->wait_tail].next_q = i;
    ps[i].next_q = kNone;
    h->wait_tail = i;
    if (!h->retry) {
        h->retry = 1;
        push(std::max(h->cpu_free, now_), eRecvRetry, r, 0, 0);
    }
}

inline void Simulator::retry_recvs(int r) {
    RankHdr* h = state_[static_cast<std::size_t>(r)];
    h->retry = 0;
    PStep* ps = steps_of(h);
    while (h->wait_head != kNone) {
        if (h->cpu_free > now_) {
            h->retry = 1;
            push(h->cpu_free, eRecvRetry, r, 0, 0);
            return;
        }
        const std::uint32_t i = h->wait_head;
        h->wait_head = ps[i].next_q;
        if (h->wait_head == kNone) h->wait_tail = kNone;
        claim_now(r, h, i, cost_id(level(ps[i].peer, r), ps[i].peer, r, ps[i].bytes), true);
        if (done(r)) return;  // that was its last step
    }
}

// The receive takes the CPU now (cpu_free <= now). PLogP: c = max(A, max(p, f) + or) with
// f = cpu_free; p.t holds the post time p, and A = now when the message came last, A <= p
// otherwise, so max(A, ...) = max(now, ...). A receive that waited for the CPU has f = now:
// it completes or after now.
inline void Simulator::claim_now(int r, RankHdr* h, std::uint32_t i, std::uint32_t cost, bool waited) {
    PStep& p = steps_of(h)[i];
    const Cost& c = costs_[cost];
    double done;
    if (costs_.recv_after_arrival() || waited)
        done = now_ + c.recv_cpu;
    else
        done = std::max(now_, std::max(p.t, h->cpu_free) + c.recv_cpu);
    h->cpu_free = done;
    complete_at(r, h, i, done);
}

}  // namespace gridcoll::sim::detail
