// The schedule event simulator's engine, one class whose parts live in three files (see
// gridcoll/sim/event_sim.hpp for the semantics):
//   simulator_build.cpp    building and packing the ranks' schedules, starting them at time 0
//   simulator_steps.cpp    steps: completion, readiness, posting, the CPU for receives
//   simulator_network.cpp  messages: levels and costs, shared links, arrival, matching, rendezvous
//   simulator.cpp          running it: the event loop, and the entry points for PLogP and LogGP
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
// Internal to sim/.
#pragma once

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arena.hpp"
#include "bench_timing.hpp"
#include "event_queue.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/step_graph.hpp"
#include "message_costs.hpp"
#include "packed_schedule.hpp"
#include "routed_links.hpp"
#include "shared_links.hpp"
#include "simulator.hpp"

namespace gridcoll::sim::detail {

// A step's operation as the stuck report names it.
std::string op_name(std::uint8_t op);

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
              Costs costs, const SimOptions& opt, PairClasses pairs);

    SimResult run();

    // (The arena releases every block.)

private:
    // ---- building ----

    // Rank req_.rank's schedule, inside the bench's timing method if asked (bench_timing.hpp).
    Schedule build_schedule() const {
        return opt_.bench_timing ? with_bench_timing(alg_.build(req_), req_.root) : alg_.build(req_);
    }

    // Builds rank r's schedule and packs it into a new arena block; returns the header.
    RankHdr* build(int r);

    // True when all rank r's time-0 work is posting receives: every step without dependencies
    // is a receive (none can complete before a message comes). Such a rank is passive.
    static bool only_receives_at_zero(const Schedule& s);

    // rqtmp_: the receive queues of the schedule in graph_ (rank r's), sorted.
    void receive_queues(int r);
    // Packs rank r's schedule into a new arena block; returns the header.
    RankHdr* pack(int r, const Schedule& s);

    // Makes the dependency-free steps ready, at time 0, and runs what follows at time 0.
    void init_at_zero(int r, RankHdr* h);

    void count_active() {
        ++active_;
        res_.counters.peak_active_ranks = std::max<std::uint64_t>(res_.counters.peak_active_ranks, active_);
    }

    void release(RankHdr* h) { arena_.free(h, block_bytes(h->n, h->n_succ, h->n_rq)); }

    bool done(int r) const { return state_[static_cast<std::size_t>(r)] == &done_; }

    void start_rank_at_zero(int r);

    // Rank r's packed schedule, for a message from `src`.
    RankHdr* ensure_built(int r, int src) {
        RankHdr* h = state_[static_cast<std::size_t>(r)];
        return h && h != &done_ ? h : build_on_message(r, src);
    }
    // Rank r's schedule built on its first message (from `src`), or an error when r had finished.
    RankHdr* build_on_message(int r, int src);

    // ---- steps ----

    void push(double t, std::uint8_t kind, std::int32_t a, std::uint32_t b, std::uint64_t cost = 0) {
        queue_.push(Event{t, (seq_++ << 3) | kind, a, b, cost});
        ++pushed_;
        res_.counters.peak_queue = std::max<std::uint64_t>(res_.counters.peak_queue, queue_.size());
    }

    // Step i of rank r completes at time t (now, or later). A step nothing depends on needs no
    // event: it is done now, and its rank finishes at the latest such time.
    void complete_at(int r, RankHdr* h, std::uint32_t i, double t);
    void complete_now(int r, std::uint32_t i) { fifo_.emplace_back(r, i); }

    void drain();

    void finish_step(int r, std::uint32_t i);

    void finish_rank(int r);

    void make_ready(int r, RankHdr* h, std::uint32_t i);

    // Posts step i and every ready step queued behind it.
    void post_chain(int r, RankHdr* h, std::uint32_t i);

    int level(int a, int b) const;

    // The costs of a message of `bytes` at level lv between ranks a and b: their clusters'
    // pair's parameters, else their level-lv cluster's, else the level's (PairClasses).
    std::uint32_t cost_id(int lv, int a, int b, std::uint64_t bytes);
    // ... of rank r's port at level lv (its level-lv cluster's, else the level's).
    std::uint32_t port_id(int lv, int r, std::uint64_t bytes);

    bool shared_level(int lv) const { return opt_.shared_link_levels != 0 && ((opt_.shared_link_levels >> lv) & 1u); }

    // The shared link between a's and b's clusters of level lv + 1 (see
    // SimOptions::shared_link_levels); a rank without a cluster there is its own.
    std::uint32_t link(int lv, int a, int b);

    // Link l's next departure moved (and with cross traffic its other direction's).
    void reschedule(std::uint32_t l);

    // Send step `step` of rank src puts its message on the shared link now.
    void enter_link(int src, int dst, std::uint32_t cost, std::uint32_t step, std::uint32_t recv = 0);

    // Messages leave link l now (unless the event is stale) and arrive L later; l = kRouted:
    // messages leave their routes (routed_links.hpp).
    void leave_link(std::uint32_t l, std::uint32_t version);
    // The route through the sites' network of a message at level lv from a to b, or nullptr.
    const std::vector<int>* route(int lv, int a, int b) const;
    // The routed messages' next departure moved.
    void reschedule_routed();
    static constexpr std::uint32_t kRouted = 0x7fffffffu;

    bool synchronous(std::uint64_t bytes) const {
        return opt_.synchronous_sends && bytes >= opt_.synchronous_from;
    }

    void post(int r, RankHdr* h, std::uint32_t i);

    // Receive step i of rank r is posted and its message has arrived (by now): it claims the
    // CPU now if the CPU is idle and no receive waits before it; otherwise it joins the rank's
    // FIFO of receives waiting for the CPU, served by a RecvRetry event at the time the CPU
    // becomes free (work claimed at that instant by steps becoming ready then goes first, as
    // their events are older). One RecvRetry event per rank at a time.
    void claim_recv(int r, RankHdr* h, std::uint32_t i, std::uint32_t cost);

    void retry_recvs(int r);

    // The receive takes the CPU now (cpu_free <= now). PLogP: c = max(A, max(p, f) + or) with
    // f = cpu_free; p.t holds the post time p, and A = now when the message came last, A <= p
    // otherwise, so max(A, ...) = max(now, ...). A receive that waited for the CPU has f = now:
    // it completes or after now.
    void claim_now(int r, RankHdr* h, std::uint32_t i, std::uint32_t cost, bool waited);

    // A message's nominal arrival: pass it through the receiver's incoming port.
    // (`msg`: the Costs index, and with rendezvous the matched receive step above bit 32.)
    void arrive(int src, int dst, std::uint64_t msg);

    // The message from `src` has fully arrived at `dst` (now): match it (with rendezvous it
    // was matched at its envelope).
    void deliver(int src, int dst, std::uint64_t msg);

    // The receive at `dst` (header h) that the next message from `src` on `channel` meets (FIFO
    // per pair and channel).
    std::uint32_t match(int src, int dst, RankHdr* h, std::uint32_t cost, int channel);
    // A send step's index and channel in the upper half of an event's payload (Envelope,
    // LinkEnter): the sender may have finished, its state gone, when the event is taken. Steps
    // are fewer than 2^27 (pack() checks).
    static constexpr std::uint32_t kMaxSteps = std::uint32_t{1} << 27;
    static std::uint64_t send_ref(std::uint32_t step, unsigned channel) {
        return (std::uint64_t{channel} << 59) | (std::uint64_t{step} << 32);
    }
    static std::uint32_t ref_step(std::uint64_t x) { return static_cast<std::uint32_t>(x >> 32) & (kMaxSteps - 1); }
    static int ref_channel(std::uint64_t x) { return static_cast<int>(x >> 59); }

    // ---- rendezvous (SimOptions::rendezvous) ----

    // The envelope of send step `step` (on `channel`) of `src` reaches `dst` now: it matches its
    // receive, and the transfer starts now, or when the receive is posted (post()) if it is not yet.
    void envelope(int src, int dst, std::uint32_t cost, std::uint32_t step, int channel);

    // The message of send step `step` of `src`, matched to receive step `recv` of `dst`, starts
    // its transfer now (over a shared link, or straight to its nominal arrival).
    void start_transfer(int src, int dst, std::uint32_t cost, std::uint32_t step, std::uint32_t recv);

    struct WaitingSend {
        std::uint32_t cost, step;
    };
    static std::uint64_t waiting_key(int rank, std::uint32_t recv) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)) << 32 | recv;
    }

    [[noreturn]] void stuck();

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
    RoutedLinks routed_;
    int routed_level_ = -1;             // the shared level whose sites have a network (routed_)
    const SiteNetwork* net_ = nullptr;  // that network
    std::vector<LinkFlow> left_;        // scratch of leave_link
    std::unordered_map<std::uint64_t, WaitingSend> waiting_;  // (rank, receive) -> its waiting sender
};

}  // namespace gridcoll::sim::detail
