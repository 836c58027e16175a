// The schedule event simulator's engine (see gridcoll/event_sim.hpp for the semantics).
//
// Layout of the work:
//   - Costs: the five numbers a message of m bytes at one level costs (send CPU, outgoing port,
//     transit to the last byte's arrival, incoming port, receive CPU), computed once per
//     (level, size) and named by an index the message's events carry.
//   - Packed schedules: one arena block per active rank: a header, the receive queues per peer
//     (for FIFO matching), the steps (32 bytes each) and the successor lists of steps with two
//     or more successors (a single successor is kept in the step).
//   - Events: StepDone (a send's os, a receive's completion or a reduction ending in the
//     future, when other steps depend on it), Arrive (a message's nominal arrival N), Arrived
//     (after the incoming port delayed it), RecvRetry (receives waiting for the CPU), and for
//     shared links LinkEnter (a send reaching its link) and LinkDone (a message leaving a
//     link, shared_links.hpp), with rendezvous Envelope (a send's envelope at its receiver), taken
//     in order of (time, creation order): a FIFO per distinct time, a binary heap over the times.
//   - Completions at the current instant go through a FIFO (the breadth-first walk).
#include "simulator.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "arena.hpp"
#include "event_queue.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/step_graph.hpp"
#include "message_costs.hpp"
#include "packed_schedule.hpp"
#include "shared_links.hpp"
#include "bench_timing.hpp"

namespace gridcoll::sim::detail {

namespace {

std::string op_name(std::uint8_t op) {
    switch (op) {
        case kSend:
            return "send to";
        case kRecv:
            return "recv from";
        case kReduce:
            return "reduce";
        default:
            return "copy";
    }
}

// The parameter classes of pairs of clusters (PairParams) and of clusters (ClusterParams):
// class levels + i for pairs[i], levels + pairs + j for clusters[j]; a pair's looked up by
// (level, cluster a, cluster b) at level + 1, both ways round, a cluster's by (level, id).
struct PairClasses {
    std::uint64_t pair_levels = 0;     // bit l: level l has pairs
    std::uint64_t cluster_levels = 0;  // bit l: level l has clusters
    std::unordered_map<std::uint64_t, std::uint32_t> pair;
    std::unordered_map<std::uint64_t, std::uint32_t> cluster;
    static std::uint64_t key(int level, int a, int b) {
        return static_cast<std::uint64_t>(level) << 58 | static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 29 |
               static_cast<std::uint32_t>(b);
    }
};

class Simulator {
public:
    Simulator(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
              Costs costs, const SimOptions& opt, PairClasses pairs)
        : req_(proto), alg_(algorithm), map_(map), costs_(std::move(costs)), opt_(opt), pairs_(std::move(pairs)) {
        if (alg_.coll != proto.coll)
            throw Error("simulate: algorithm '" + alg_.name + "' is a " + std::string(to_string(alg_.coll)) +
                        " algorithm, the request is a " + std::string(to_string(proto.coll)));
        if (alg_.build == nullptr) throw Error("simulate: algorithm '" + alg_.name + "' has no builder");
        if (topology) req_.topology = topology;
        req_.rank = 0;
        links_.set_cross_traffic(opt_.cross_traffic);
        validate(req_);
        if (alg_.needs_topology && req_.topology == nullptr)
            throw Error(std::string(to_string(req_.coll)) + " algorithm '" + alg_.name + "' needs a topology");
        P_ = req_.size;
        if (map_ && map_->size() != P_)
            throw Error("simulate: the topology has " + std::to_string(map_->size()) + " ranks but the request " +
                        std::to_string(P_));
        const std::size_t need = map_ ? static_cast<std::size_t>(map_->levels()) : 1;
        if (costs_.levels() < need)
            throw Error("simulate: parameters for " + std::to_string(costs_.levels()) + " level(s) but the " +
                        (map_ ? "topology has " + std::to_string(need) : std::string("flat network needs 1")));
        if (!(opt_.gamma >= 0)) throw Error("simulate: gamma must be >= 0");
        if ((pairs_.pair_levels | pairs_.cluster_levels) != 0 && !map_)
            throw Error("simulate: parameters of clusters or cluster pairs need a topology");
        for (int l = 0; l < 32; ++l) {
            if (!((opt_.shared_link_levels >> l) & 1u)) continue;
            if (!map_) throw Error("simulate: shared links need a topology (a flat network has one level)");
            if (l + 1 >= map_->levels())
                throw Error("simulate: shared links at level " + std::to_string(l) + " need a level below it (the topology has " +
                            std::to_string(map_->levels()) + " level(s))");
        }
    }

    SimResult run() {
        const auto P = static_cast<std::size_t>(P_);
        state_.assign(P, nullptr);
        if (opt_.per_rank_finish) res_.finish.assign(P, 0.0);
        // Time 0: every rank starts; passive ones may be dropped again (see the header).
        for (int r = 0; r < P_; ++r) start_rank_at_zero(r);
        while (!queue_.empty()) {
            const Event e = queue_.pop();
            ++res_.counters.events;
            now_ = e.t;
            const auto cost = static_cast<std::uint32_t>(e.cost);
            switch (static_cast<std::uint8_t>(e.key & 7)) {
                case eStepDone:
                    complete_now(e.a, e.b);
                    break;
                case eArrive:
                    arrive(e.a, static_cast<int>(e.b), e.cost);
                    break;
                case eArrived:
                    deliver(e.a, static_cast<int>(e.b), e.cost);
                    break;
                case eEnvelope:
                    envelope(e.a, static_cast<int>(e.b), cost, static_cast<std::uint32_t>(e.cost >> 32));
                    break;
                case eLinkEnter:
                    enter_link(e.a, static_cast<int>(e.b), cost, static_cast<std::uint32_t>(e.cost >> 32));
                    break;
                case eLinkDone:
                    leave_link(static_cast<std::uint32_t>(e.a), e.b);
                    break;
                default:
                    retry_recvs(e.a);
                    break;
            }
            drain();
        }
        if (finished_ != P_) stuck();
        res_.time = best_ - clock_start_;
        res_.last_rank = best_rank_;
        return std::move(res_);
    }

    // (The arena releases every block.)

private:
    // ---- building ----

    // Rank req_.rank's schedule, inside the bench's timing method if asked (bench_timing.hpp).
    Schedule build_schedule() const {
        return opt_.bench_timing ? with_bench_timing(alg_.build(req_), req_.root) : alg_.build(req_);
    }

    // Builds rank r's schedule and packs it into a new arena block; returns the header.
    RankHdr* build(int r) {
        req_.rank = r;
        const Schedule s = build_schedule();
        ++res_.counters.schedules_built;
        return pack(r, s);
    }

    // True when all rank r's time-0 work is posting receives: every step without dependencies
    // is a receive (none can complete before a message comes). Such a rank is passive.
    static bool only_receives_at_zero(const Schedule& s) {
        if (s.empty()) return false;
        for (const Step& st : s.steps())
            if (st.dep_count == 0 && st.op != Op::Recv) return false;
        return true;
    }

    // Packs rank r's schedule into a new arena block; returns the header.
    RankHdr* pack(int r, const Schedule& s) {
        const auto n = static_cast<std::uint32_t>(s.size_steps());
        graph_.build(s);  // successors and posting queues (gridcoll/step_graph.hpp)
        // Receive queues, sorted by peer: where an arriving message finds its receive.
        rqtmp_.clear();
        for (const StepGraph::Queue& q : graph_.queues()) {
            if (q.peer >= P_)
                throw Error("simulate: rank " + std::to_string(r) + " step " + std::to_string(q.first) + " names peer " +
                            std::to_string(q.peer) + " of " + std::to_string(P_) + " ranks");
            if (q.recv) rqtmp_.push_back(RecvQ{q.peer, q.first});
        }
        // Successor lists: steps with two or more successors get room in the successor array.
        std::uint32_t n_succ = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t c = graph_.successor_count(i);
            if (c >= 2) n_succ += c + (c >= 255 ? 1 : 0);
        }
        if (rqtmp_.size() > 1)
            std::sort(rqtmp_.begin(), rqtmp_.end(), [](const RecvQ& x, const RecvQ& y) { return x.peer < y.peer; });
        const auto n_rq = static_cast<std::uint32_t>(rqtmp_.size());
        auto* h = static_cast<RankHdr*>(arena_.alloc(block_bytes(n, n_succ, n_rq)));
        h->cpu_free = h->out_free = h->in_free = h->last_done = 0;
        h->n = n;
        h->remaining = n;
        h->n_succ = n_succ;
        h->n_rq = n_rq;
        h->wait_head = h->wait_tail = kNone;
        h->retry = 0;
        PStep* ps = steps_of(h);
        std::uint32_t* succ = succ_of(h);
        std::uint32_t at = 0;
        for (StepId i = 0; i < n; ++i) {
            const Step& st = s.step(i);
            PStep& p = ps[i];
            p.t = 0;
            p.peer = st.peer;
            p.pending = st.dep_count;
            p.next_q = kNone;
            p.flags = 0;
            const auto list = graph_.successors(i);
            const auto c = static_cast<std::uint32_t>(list.size());
            p.nsucc = std::min<std::uint32_t>(c, 255);
            p.succ = c == 1 ? list[0] : 0;
            if (c >= 2) {
                p.succ = at;
                if (c >= 255) succ[at++] = c;
                std::copy(list.begin(), list.end(), succ + at);
                at += c;
            }
            const std::uint64_t len = st.op == Op::Recv ? st.dst.len : st.src.len;
            if (len > kMaxBytes)
                throw Error("simulate: rank " + std::to_string(r) + " step " + std::to_string(i) + " moves " +
                            std::to_string(len) + " bytes (the simulator's limit is 2^48 - 1)");
            p.bytes = len;
            switch (st.op) {
                case Op::Send:
                    p.op = kSend;
                    break;
                case Op::Recv:
                    p.op = kRecv;
                    break;
                case Op::Reduce:
                    p.op = kReduce;
                    break;
                case Op::Copy:
                    p.op = kCopy;
                    break;
            }
        }
        // Posting queues: each step links to the next of its queue; all but the first wait.
        for (StepId i = 0; i < n; ++i) {
            const StepId j = graph_.next_in_queue(i);
            if (j == kNoStep) continue;
            ps[i].next_q = j;
            ps[j].flags |= fBlocked;
        }
        std::copy(rqtmp_.begin(), rqtmp_.end(), rq_of(h));
        return h;
    }

    // Makes the dependency-free steps ready, at time 0, and runs what follows at time 0.
    void init_at_zero(int r, RankHdr* h) {
        const double saved = now_;
        now_ = 0;
        state_[static_cast<std::size_t>(r)] = h;
        PStep* ps = steps_of(h);
        if (h->n == 0) {
            finish_rank(r);  // nothing to do: finished at 0
        } else {
            // (A step without successors completing later may finish the rank on the spot.)
            const std::uint32_t n = h->n;
            for (std::uint32_t i = 0; i < n && !done(r); ++i)
                if (ps[i].pending == 0) make_ready(r, h, i);
            drain();
        }
        now_ = saved;
    }

    void count_active() {
        ++active_;
        res_.counters.peak_active_ranks = std::max<std::uint64_t>(res_.counters.peak_active_ranks, active_);
    }

    void release(RankHdr* h) { arena_.free(h, block_bytes(h->n, h->n_succ, h->n_rq)); }

    bool done(int r) const { return state_[static_cast<std::size_t>(r)] == &done_; }

    void start_rank_at_zero(int r) {
        req_.rank = r;
        const Schedule s = build_schedule();
        ++res_.counters.schedules_built;
        if (arena_.in_use() >= opt_.keep_bytes && only_receives_at_zero(s)) {
            // Passive for sure and over the memory budget: not even packed (see below).
            state_[static_cast<std::size_t>(r)] = nullptr;
            return;
        }
        RankHdr* h = pack(r, s);
        const std::uint64_t pushed = pushed_, steps = res_.counters.steps;
        count_active();
        init_at_zero(r, h);
        if (done(r)) return;  // finished at time 0
        if (pushed_ == pushed && h->cpu_free == 0 && h->out_free == 0 && arena_.in_use() > opt_.keep_bytes) {
            // Passive (only receives posted, and free local steps) and over the memory budget:
            // dropped, rebuilt on its first message.
            release(h);
            --active_;
            state_[static_cast<std::size_t>(r)] = nullptr;
            res_.counters.steps = steps;
        }
    }

    // Rank r's packed schedule, for a message from `src`.
    RankHdr* ensure_built(int r, int src) {
        RankHdr* h = state_[static_cast<std::size_t>(r)];
        if (h == &done_)
            throw Error("simulate: rank " + std::to_string(src) + " sends more messages to rank " + std::to_string(r) +
                        " than rank " + std::to_string(r) + " receives from it (rank " + std::to_string(r) +
                        " had finished)");
        if (h) return h;
        h = build(r);
        count_active();
        const std::uint64_t pushed = pushed_;
        init_at_zero(r, h);
        if (pushed_ != pushed || done(r))
            throw Error("simulate: the builder of rank " + std::to_string(r) + " is not deterministic");
        return h;
    }

    // ---- steps ----

    void push(double t, std::uint8_t kind, std::int32_t a, std::uint32_t b, std::uint64_t cost = 0) {
        queue_.push(Event{t, (seq_++ << 3) | kind, a, b, cost});
        ++pushed_;
        res_.counters.peak_queue = std::max<std::uint64_t>(res_.counters.peak_queue, queue_.size());
    }

    // Step i of rank r completes at time t (now, or later). A step nothing depends on needs no
    // event: it is done now, and its rank finishes at the latest such time.
    void complete_at(int r, RankHdr* h, std::uint32_t i, double t) {
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
    void complete_now(int r, std::uint32_t i) { fifo_.emplace_back(r, i); }

    void drain() {
        while (fifo_head_ < fifo_.size()) {
            const auto [r, i] = fifo_[fifo_head_++];
            finish_step(r, i);
        }
        fifo_.clear();
        fifo_head_ = 0;
    }

    void finish_step(int r, std::uint32_t i) {
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

    void finish_rank(int r) {
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

    void make_ready(int r, RankHdr* h, std::uint32_t i) {
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
    void post_chain(int r, RankHdr* h, std::uint32_t i) {
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

    int level(int a, int b) const {
        if (!map_) return 0;
        const int l = map_->common_level(a, b);
        if (l < 0)
            throw Error("simulate: ranks " + std::to_string(a) + " and " + std::to_string(b) +
                        " share no topology level");
        return l;
    }

    // The costs of a message of `bytes` at level lv between ranks a and b: their clusters'
    // pair's parameters, else their level-lv cluster's, else the level's (PairClasses).
    std::uint32_t cost_id(int lv, int a, int b, std::uint64_t bytes) {
        if ((pairs_.pair_levels >> lv) & 1u) {
            const auto it = pairs_.pair.find(PairClasses::key(lv, map_->cluster(a, lv + 1), map_->cluster(b, lv + 1)));
            if (it != pairs_.pair.end()) return costs_.id(lv, it->second, bytes);
        }
        return port_id(lv, a, bytes);
    }
    // ... of rank r's port at level lv (its level-lv cluster's, else the level's).
    std::uint32_t port_id(int lv, int r, std::uint64_t bytes) {
        if ((pairs_.cluster_levels >> lv) & 1u) {
            const auto it = pairs_.cluster.find(PairClasses::key(lv, map_->cluster(r, lv), 0));
            if (it != pairs_.cluster.end()) return costs_.id(lv, it->second, bytes);
        }
        return costs_.id(lv, bytes);
    }

    bool shared_level(int lv) const { return opt_.shared_link_levels != 0 && ((opt_.shared_link_levels >> lv) & 1u); }

    // The shared link between a's and b's clusters of level lv + 1 (see
    // SimOptions::shared_link_levels); a rank without a cluster there is its own.
    std::uint32_t link(int lv, int a, int b) {
        auto id = [&](int r) {
            const int c = map_->cluster(r, lv + 1);
            return static_cast<std::uint64_t>(c >= 0 ? c : P_ + r);
        };
        const std::uint64_t level = static_cast<std::uint64_t>(lv) << 58;
        return links_.find(level | (id(a) << 29) | id(b), level | (id(b) << 29) | id(a));
    }

    // Link l's next departure moved (and with cross traffic its other direction's).
    void reschedule(std::uint32_t l) {
        if (links_.busy(l)) push(links_.next(l), eLinkDone, static_cast<std::int32_t>(l), links_.version(l));
        if (links_.coupled(l)) {
            const std::uint32_t r = links_.reverse(l);
            if (links_.busy(r)) push(links_.next(r), eLinkDone, static_cast<std::int32_t>(r), links_.version(r));
        }
    }

    // Send step `step` of rank src puts its message on the shared link now.
    void enter_link(int src, int dst, std::uint32_t cost, std::uint32_t step, std::uint32_t recv = 0) {
        const Cost& c = costs_[cost];
        const std::uint32_t l = link(c.level, src, dst);
        SharedLinks::Flow f;
        f.src = src;
        f.dst = dst;
        f.cost = cost;
        f.step = step;
        f.recv = recv;
        links_.add(l, now_, c.out_gap, f);
        reschedule(l);
    }

    // Messages leave link l now (unless the event is stale) and arrive L later.
    void leave_link(std::uint32_t l, std::uint32_t version) {
        left_.clear();
        if (!links_.depart(l, version, now_, left_)) return;
        for (const auto& f : left_) {
            const Cost& c = costs_[f.cost];
            // PLogP: transit - gap = L. (LogGP: o + L - g, which may be negative: then on leaving.)
            const double at = links_.arrival(f, now_ + std::max(0.0, c.transit - c.out_gap));
            push(at, eArrive, f.src, static_cast<std::uint32_t>(f.dst), (static_cast<std::uint64_t>(f.recv) << 32) | f.cost);
            if (synchronous(c.bytes)) complete_at(f.src, state_[static_cast<std::size_t>(f.src)], f.step, at);
        }
        reschedule(l);
    }

    bool synchronous(std::uint64_t bytes) const {
        return opt_.synchronous_sends && bytes >= opt_.synchronous_from;
    }

    void post(int r, RankHdr* h, std::uint32_t i) {
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
                push(s, eEnvelope, r, static_cast<std::uint32_t>(p.peer), (static_cast<std::uint64_t>(i) << 32) | id);
                if (!synchronous(c.bytes)) complete_at(r, h, i, s + c.send_cpu);
                return;
            }
            if (shared) {
                // Through the queue even at s = now: events of one time leave in creation
                // order, so a pair's messages enter the link in the order they were posted.
                push(s, eLinkEnter, r, static_cast<std::uint32_t>(p.peer), (static_cast<std::uint64_t>(i) << 32) | id);
                if (!synchronous(c.bytes)) complete_at(r, h, i, s + c.send_cpu);
                return;
            }
            push(s + c.transit, eArrive, r, static_cast<std::uint32_t>(p.peer), id);
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
    void claim_recv(int r, RankHdr* h, std::uint32_t i, std::uint32_t cost) {
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

    void retry_recvs(int r) {
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
    void claim_now(int r, RankHdr* h, std::uint32_t i, std::uint32_t cost, bool waited) {
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

    // A message's nominal arrival: pass it through the receiver's incoming port.
    // (`msg`: the Costs index, and with rendezvous the matched receive step above bit 32.)
    void arrive(int src, int dst, std::uint64_t msg) {
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
    void deliver(int src, int dst, std::uint64_t msg) {
        const auto cost = static_cast<std::uint32_t>(msg);
        RankHdr* h = ensure_built(dst, src);
        const std::uint32_t i = opt_.rendezvous ? static_cast<std::uint32_t>(msg >> 32) : match(src, dst, h, cost);
        PStep& p = steps_of(h)[i];
        p.flags |= fArrived;
        if (p.flags & fPosted) claim_recv(dst, h, i, cost);
    }

    // The receive at `dst` (header h) that the next message from `src` meets (FIFO per pair).
    std::uint32_t match(int src, int dst, RankHdr* h, std::uint32_t cost) {
        const std::uint64_t bytes = costs_[cost].bytes;
        RecvQ* rq = rq_of(h);
        RecvQ* q = rq;
        if (h->n_rq > 4)
            q = std::lower_bound(rq, rq + h->n_rq, src, [](const RecvQ& x, int p) { return x.peer < p; });
        else
            while (q != rq + h->n_rq && q->peer < src) ++q;
        if (q == rq + h->n_rq || q->peer != src || q->next == kNone)
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

    // ---- rendezvous (SimOptions::rendezvous) ----

    // The envelope of send step `step` of `src` reaches `dst` now: it matches its receive, and
    // the transfer starts now, or when the receive is posted (post()) if it is not yet.
    void envelope(int src, int dst, std::uint32_t cost, std::uint32_t step) {
        RankHdr* h = ensure_built(dst, src);
        const std::uint32_t i = match(src, dst, h, cost);
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
    void start_transfer(int src, int dst, std::uint32_t cost, std::uint32_t step, std::uint32_t recv) {
        const Cost& c = costs_[cost];
        if (shared_level(c.level)) {
            enter_link(src, dst, cost, step, recv);
            return;
        }
        const double at = now_ + c.transit;
        push(at, eArrive, src, static_cast<std::uint32_t>(dst), (static_cast<std::uint64_t>(recv) << 32) | cost);
        if (synchronous(c.bytes)) complete_at(src, state_[static_cast<std::size_t>(src)], step, at);
    }

    struct WaitingSend {
        std::uint32_t cost, step;
    };
    static std::uint64_t waiting_key(int rank, std::uint32_t recv) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)) << 32 | recv;
    }

    [[noreturn]] void stuck() {
        for (int r = 0; r < P_; ++r) {
            if (done(r)) continue;
            RankHdr* h = state_[static_cast<std::size_t>(r)];
            if (h == nullptr) {
                h = build(r);  // never received anything: show what it waits for
                init_at_zero(r, h);
            }
            const PStep* ps = steps_of(h);
            for (std::uint32_t i = 0; i < h->n; ++i) {
                if (ps[i].flags & fDone) continue;
                std::string what = "step " + std::to_string(i) + " (" + op_name(static_cast<std::uint8_t>(ps[i].op));
                if (ps[i].op == kSend || ps[i].op == kRecv) what += " " + std::to_string(ps[i].peer);
                what += ", " + std::to_string(static_cast<std::uint64_t>(ps[i].bytes)) + " bytes) ";
                if (!(ps[i].flags & fReady))
                    what += "waits for " + std::to_string(ps[i].pending) + " dependencies";
                else if (!(ps[i].flags & fPosted))
                    what += "waits behind an earlier step to the same peer";
                else
                    what += "never gets its message";
                throw Error("simulate: " + std::string(to_string(req_.coll)) + " algorithm '" + alg_.name +
                            "' is stuck: " + std::to_string(P_ - finished_) + " rank(s) never finish; rank " +
                            std::to_string(r) + " " + what + " at time " + std::to_string(now_));
            }
        }
        throw Error("simulate: stuck");
    }

    Request req_;
    Algorithm alg_;
    const LevelMap* map_;
    Costs costs_;
    SimOptions opt_;
    PairClasses pairs_;
    int P_ = 0;

    double now_ = 0;
    std::uint64_t seq_ = 0, pushed_ = 0;
    EventQueue queue_;
    std::vector<RankHdr*> state_;  // nullptr: not built (yet); &done_: finished
    RankHdr done_{};
    std::vector<std::pair<int, std::uint32_t>> fifo_;
    std::size_t fifo_head_ = 0;
    std::uint64_t active_ = 0;
    int finished_ = 0;
    double best_ = 0;
    double clock_start_ = 0;  // with bench_timing: when the root's clock starts
    int best_rank_ = 0;
    SimResult res_;

    // Packed schedules, and scratch reused by every build.
    Arena arena_;
    StepGraph graph_;
    std::vector<RecvQ> rqtmp_;
    SharedLinks links_;
    std::vector<SharedLinks::Flow> left_;  // scratch of leave_link
    std::unordered_map<std::uint64_t, WaitingSend> waiting_;  // (rank, receive) -> its waiting sender
};

}  // namespace

template <class P>
PairClasses classes(std::size_t levels, std::span<const PairParams<P>> pairs, std::span<const ClusterParams<P>> clusters) {
    PairClasses c;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const PairParams<P>& p = pairs[i];
        if (p.level < 0 || static_cast<std::size_t>(p.level) + 1 >= levels || p.a < 0 || p.b < 0 || p.a == p.b)
            throw Error("simulate: parameters of the cluster pair " + std::to_string(p.a) + "-" + std::to_string(p.b) +
                        " at level " + std::to_string(p.level) + " name no two clusters of a level with one below it");
        const auto k = static_cast<std::uint32_t>(levels + i);
        c.pair[PairClasses::key(p.level, p.a, p.b)] = k;
        c.pair[PairClasses::key(p.level, p.b, p.a)] = k;
        c.pair_levels |= std::uint64_t{1} << p.level;
    }
    for (std::size_t j = 0; j < clusters.size(); ++j) {
        const ClusterParams<P>& q = clusters[j];
        if (q.level < 0 || static_cast<std::size_t>(q.level) >= levels || q.id < 0)
            throw Error("simulate: parameters of cluster " + std::to_string(q.id) + " at level " + std::to_string(q.level) +
                        " name no cluster of the topology's levels");
        c.cluster[PairClasses::key(q.level, q.id, 0)] = static_cast<std::uint32_t>(levels + pairs.size() + j);
        c.cluster_levels |= std::uint64_t{1} << q.level;
    }
    return c;
}

template <class P>
std::vector<P> class_values(std::span<const PairParams<P>> pairs, std::span<const ClusterParams<P>> clusters) {
    std::vector<P> v;
    for (const auto& p : pairs) v.push_back(p.params);
    for (const auto& q : clusters) v.push_back(q.params);
    return v;
}

template <class P>
SimResult run(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
              std::span<const P> levels, const SimOptions& options, std::span<const PairParams<P>> pairs,
              std::span<const ClusterParams<P>> clusters) {
    return Simulator(proto, algorithm, topology, map, Costs(levels, class_values(pairs, clusters)), options,
                     classes(map ? static_cast<std::size_t>(map->levels()) : 1, pairs, clusters))
        .run();
}

SimResult run_simulation(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                         std::span<const model::PLogPParams> levels, const SimOptions& options,
                         std::span<const PairParams<model::PLogPParams>> pairs,
                         std::span<const ClusterParams<model::PLogPParams>> clusters) {
    return run(proto, algorithm, topology, map, levels, options, pairs, clusters);
}

SimResult run_simulation(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                         std::span<const model::LogGPParams> levels, const SimOptions& options,
                         std::span<const PairParams<model::LogGPParams>> pairs,
                         std::span<const ClusterParams<model::LogGPParams>> clusters) {
    return run(proto, algorithm, topology, map, levels, options, pairs, clusters);
}

}  // namespace gridcoll::sim::detail
