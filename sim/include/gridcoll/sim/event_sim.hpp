// The schedule event simulator: replays the schedules of all ranks of one collective operation
// on a discrete-event queue under a per-level PLogP (or LogGP) parameter set, like LogGOPSim
// replays GOAL schedules. It consumes exactly the schedules the MPI executor runs
// (gridcoll/schedule.hpp), so its prediction is the model's prediction for the very same
// algorithm, on any tree and any multilevel topology, at scales SMPI cannot reach.
//
// ---------------------------------------------------------------------------------------------
// Semantics (PLogP, papers 000 §2 and 002 §3). All ranks start at time 0.
//
// Resources. Every rank has one CPU, one outgoing network port and one incoming network port.
// Each is busy until a time (cpu_free, out_free, in_free; all 0 at the start).
//
// Parameters of a message. A message of m bytes from rank a to rank b uses the parameters of
// level l = topology.common_level(a, b) (level 0 for every pair when there is no topology):
// L, os(m), or(m), g(m) — or, where level l's links differ (PairParams below), those of the
// link between a's and b's clusters of level l + 1. Sharing no level (l = -1) is an error.
//
// Steps. A step is ready when all its dependencies have completed. A Send or Recv step is
// *posted* when it is ready and every earlier Send (Recv) step of its rank to (from) the same
// peer has been posted — the executor's rule, which makes matching FIFO per (sender,
// receiver): the k-th send from a to b meets the k-th receive at b from a. Messages are eager:
// a send never waits for its receive (SimOptions::rendezvous changes that). Steps of one rank
// that become ready at the same instant start in the order of a breadth-first walk: the steps
// with no dependencies in schedule order, then each completed step's successors in schedule
// order (a posted step immediately posts the ready steps queued behind it). Events at equal times are processed in the order
// they were created.
//
//   Copy    completes when ready (cost 0, no CPU).
//   Reduce  of n bytes: starts at max(ready, cpu_free), occupies the CPU for gamma * n,
//           completes at the end.
//   Send    posted at t: starts at s = max(t, cpu_free, out_free) — the CPU and the port are
//           claimed when the send is posted (an MPI_Send blocks the CPU until the port takes
//           the message; this is what gives paper 002's max{2g, or + g + os} per segment at an
//           inner node of a binary tree). The CPU is busy over [s, s + os(m)] and the port
//           over [s, s + g(m)], so consecutive sends start at least g apart. The send step
//           completes at s + os(m). The message's last byte reaches b at N = s + L + g(m)
//           (paper 000: r(m) = L + g(m)).
//   arrival with receive_gap (the default; PLogP's g is "the minimum interval between
//           consecutive transmissions or receptions", and paper 002's flat-tree reduce
//           L + (P-1) n_s max{g, or + gamma m_s} needs it): receptions at b are serialised
//           through b's incoming port in the order of N: the message has arrived at
//           A = max(N, in_free + g(m)) (g of the message's level), and in_free = A.
//           Without receive_gap, A = N.
//   Recv    posted at p, its message arrived at A. At t = max(A, p) the receive claims the
//           CPU if it is idle (cpu_free <= t); otherwise it waits and tries again when the
//           CPU becomes free (LogGOPSim's rule; work claimed at that same instant by steps
//           that become ready then — e.g. the send of the previous segment — goes first), so
//           t is the first such instant at which the CPU is idle. With f = cpu_free at t:
//               c = max(A, max(p, f) + or(m)),     then cpu_free = c,
//           and the receive completes at c. The receive occupies the CPU for or(m) just
//           before it completes, over [c - or(m), c]: the CPU copies the data out while the
//           last bytes come in, so a single message posted in time is received at exactly
//           r(m) = L + g(m) (g >= or), and the receive completes at max(A, p) whenever the
//           CPU had or(m) to spare; a receive that had to wait for the CPU completes or(m)
//           after the CPU freed up (f = t). Sends and reductions claim the CPU as soon as
//           they are posted, even when they must wait for it (the send's start above), so at
//           a binary-tree node the next segment's receive waits for the second send's os:
//           the or + g + os cycle of paper 002's formula.
//   A rank finishes when its last step completes (0 for an empty schedule). The operation's
//   completion time is the latest rank finish.
//
// The model assumes g(m) >= os(m) and g(m) >= or(m) (paper 000); the simulator does not
// require it. Message sizes passed to os/or/g are the step's byte counts.
//
// LogGP (ModelKind::LogGP; L, o, g, G per level): same rules with send CPU o, port occupancy
// g + (m-1) G (both ports), last byte at s + o + (m-1) G + L, and the receive overhead after
// the claim (LogGOPSim): c = t + o. A single message takes L + 2o + (m-1) G. ((m-1) is 0 for
// m = 0.)
//
// Errors (gridcoll::Error): an unknown algorithm or bad request (from the registry); a level
// without parameters; ranks sharing no level; a send with no matching receive; matched sizes
// that differ; a stuck simulation (some rank never finishes), naming the rank and its step.
// ---------------------------------------------------------------------------------------------
//
// Scale. Schedules are built one rank at a time by the registry's builder and packed (32 bytes
// a step, plus successor lists and per-peer receive queues) into blocks of an arena; a rank's
// block is freed when the rank finishes. At time 0 every rank's schedule is built and started.
// A rank whose time-0 work is only posting receives (and zero-cost local steps) is *passive*:
// unless SimOptions::keep_bytes says otherwise, it is dropped again and rebuilt when its first
// message arrives (its state is then exactly what it would have been); when every step without
// dependencies is a receive, its schedule is not even packed at time 0. Message costs are
// computed once per (level, size). Events are taken in order of (time, creation order): one
// FIFO per distinct time, a binary heap over the times. A step that completes later than it
// starts gets an event only if other steps depend on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/model/params.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::sim {

enum class ModelKind : std::uint8_t { PLogP, LogGP };

struct SimOptions {
    double gamma = 0;              // seconds per byte of a Reduce step (paper 002 §3.2)
    bool receive_gap = true;       // serialise receptions through the incoming port (see above)
    bool per_rank_finish = false;  // fill SimResult::finish
    // Memory budget for keeping passive ranks' packed schedules from the time-0 pass (see
    // "Scale" above); beyond it they are dropped and rebuilt on their first message. The
    // default, 0, drops them all: building a schedule twice costs less than the cache misses of
    // using, long after, a block written at time 0 (measured with bench_event_sim: no slower at
    // 65,536 ranks, 1.6x to 2x faster at 1,000,000), and memory holds only the ranks under way.
    // Results do not depend on it.
    std::size_t keep_bytes = 0;
    // Link contention (off by default; not part of PLogP). Bit l set: a message whose ranks'
    // deepest shared level is l travels between their two clusters of level l + 1 over one
    // link per (source cluster, destination cluster) — a WAN link per cluster pair, as in a
    // full-mesh WAN. The messages on a link share it fairly, as SimGrid's max-min sharing does
    // (also two of one rank pair, which leave in their order): while n are on it each
    // progresses at 1/n of the rate, and a message leaves once it has had g(m) of level l of
    // the link to itself, then arrives L later (N = leave + L; a lone message entering at s
    // still arrives at s + L + g(m); under LogGP N = leave + max(0, o + L - g)). The link, not
    // the ranks, is then the bottleneck: the sender's outgoing and the receiver's incoming port
    // are busy for g(m) of level l + 1 (their own network), so one rank feeds links to several
    // clusters at once, as a node does in SimGrid. Needs a level below l (error otherwise).
    // Used to show SimGrid's sharing of a cluster pair's link by many tree edges
    // (sim/src/shared_links.hpp).
    std::uint32_t shared_link_levels = 0;
    // With shared links: SimGrid's cross traffic (its network/crosstraffic, on by default): a
    // message also takes this fraction of a share of its link's other direction (TCP's
    // acknowledgements), so while a link's two directions carry n and m messages, each of the n
    // progresses at 1/(n + x m) of the rate. 0 (the default): the directions are independent;
    // SimGrid charges 0.05.
    double cross_traffic = 0;
    // Synchronous sends (off by default; PLogP's send completes at s + os(m)): a send step
    // completes when its message arrives, at N above — MPI's rendezvous protocol, and SimGrid
    // SMPI's with smpi/send-is-detached-thresh:0. A node that chains its sends (keeps one in
    // flight) then pays L again for every message after the first.
    bool synchronous_sends = false;
    // With synchronous_sends: only messages of at least this many bytes; smaller ones complete
    // after os(m) (SimGrid's smpi/send-is-detached-thresh, 64 KiB by default: SMPI sends a smaller
    // message detached).
    std::uint64_t synchronous_from = 0;
    // SimGrid's matching (off by default): a message's envelope reaches its receiver when the
    // send starts and matches its receive then, in the order of the sends (MPI's matching
    // order); its transfer starts only once that receive is posted (at once if it already is).
    // SimGrid moves a message only between a posted send and a posted receive, detached (eager)
    // or not: a receiver that posts late delays the message, and with synchronous_sends its
    // sender too. Without it the message leaves when sent and waits at the receiver.
    bool rendezvous = false;
    // The MPI bench's timing method around the collective (sim/src/bench_timing.hpp): a zero-byte
    // release from the root to every rank before it, a zero-byte report from every rank to the
    // root after it; SimResult::time is then what gridcoll-bench measures, from the root's last
    // release send to its last report (off by default: the collective alone, from time 0).
    bool bench_timing = false;
};

struct SimCounters {
    std::uint64_t events = 0;             // events taken from the queue: message arrivals (and
                                          // re-arrivals delayed by the incoming port), later
                                          // completions of steps others depend on, receive retries,
                                          // and with shared links entries and departures (also
                                          // the stale ones a later entry superseded)
    std::uint64_t messages = 0;           // messages sent (= matched receives)
    std::uint64_t bytes = 0;              // payload bytes of those messages
    std::uint64_t steps = 0;              // steps completed, all ranks
    std::uint64_t schedules_built = 0;    // builder calls (a deferred rank is built twice)
    std::uint64_t peak_active_ranks = 0;  // ranks holding a packed schedule at once, at most
    std::uint64_t peak_queue = 0;         // events in the queue at once, at most
};

struct SimResult {
    double time = 0;             // completion time: the latest rank finish (seconds); with
                                 // SimOptions::bench_timing, the bench's measured time
    int last_rank = 0;           // a rank finishing at `time` (the lowest such rank)
    std::vector<double> finish;  // per rank finish time, if SimOptions::per_rank_finish
    SimCounters counters;
};

// Parameters of the messages between two clusters of a level whose links differ (Topology's
// pair links: an explicit WAN, one link per site pair, each with its own numbers). They replace
// level `level`'s own for every message between its clusters a and b (ids at level + 1, either
// direction). The ParamSet entry point takes them from ParamSet::pairs.
template <class Params>
struct PairParams {
    int level = 0, a = 0, b = 0;
    Params params;
};

// Parameters of one cluster of a level whose clusters differ (Topology's cluster links: zones of
// one depth with numbers of their own, as karonis-grid's machines). They replace level
// `level`'s own for every message between two ranks whose deepest shared cluster is `id` at
// that level, and for the ports of its ranks where a shared link at the level above takes them
// from it. Pair parameters, where both apply, come first. From ParamSet::clusters.
template <class Params>
struct ClusterParams {
    int level = 0, id = 0;
    Params params;
};

// Simulates `algorithm` for the operation described by `proto` (its rank field is ignored:
// every rank 0 .. proto.size - 1 is simulated) under PLogP. `levels[l]` holds the parameters
// of topology level l; `topology` may be null (a flat network: every pair uses levels[0]).
// The topology is also handed to the builders (Request::topology) when given; otherwise the
// prototype's own Request::topology, if any, is passed on. Throws Error (see above).
SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   std::span<const model::PLogPParams> levels, const SimOptions& options = {});

// Same under LogGP (see above).
SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   std::span<const model::LogGPParams> levels, const SimOptions& options = {});

// Same with a ParamSet: level l's plogp (or loggp) parameters, and those of its pairs and
// clusters (ParamSet::pairs and clusters; PairParams, ClusterParams); the ParamSet's gamma
// replaces options.gamma. A level may lack parameters of its own where every message priced
// there has a pair's or a cluster's (or none is priced there: one rank per node). Throws Error
// naming the level (and the cluster) when the chosen parameters are missing.
SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology,
                   const model::ParamSet& params, ModelKind kind = ModelKind::PLogP, SimOptions options = {});

// Where the simulator looks levels up: a Topology (referenced, not copied: it must outlive the
// map), or — for large regular machines, without materialising a Topology — a placement rule.
class LevelMap {
public:
    LevelMap() = default;
    explicit LevelMap(const Topology& t) : size_(t.size()), levels_(t.levels()), topology_(&t) {}
    // `radix[l]` ranks per cluster of level l, nested: every rank has depth radix.size(), and
    // rank r's level-l cluster id is r / radix[l]. Each radix must divide the one before it,
    // unless the one before is >= size (a single cluster), so that clusters nest
    // (e.g. {P, 125000, 20}: one WAN, clusters of 125000 ranks, nodes of 20 ranks).
    static LevelMap regular(int size, std::vector<int> radix);

    int size() const { return size_; }
    int levels() const { return levels_; }
    // Rank r's cluster id at level l (-1 below its depth).
    int cluster(int r, int l) const {
        if (topology_) return topology_->cluster(r, l);
        return r / radix_[static_cast<std::size_t>(l)];
    }
    // Deepest level whose cluster a and b share (-1 if none); Topology::common_level's rule.
    int common_level(int a, int b) const {
        if (topology_) return topology_->common_level_unchecked(a, b);
        int l = -1;
        for (int k = 0; k < levels_ && a / radix_[static_cast<std::size_t>(k)] == b / radix_[static_cast<std::size_t>(k)]; ++k)
            l = k;
        return l;
    }

private:
    int size_ = 0;
    int levels_ = 0;
    const Topology* topology_ = nullptr;
    std::vector<int> radix_;  // when regular
};

// Lowest-level entry point, used by the others: levels looked up in `map` (null = flat), the
// builders given `topology` (may be null even when `map` is not, for algorithms that ignore it).
SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::PLogPParams> levels, const SimOptions& options = {});
SimResult simulate(const Request& proto, std::string_view algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::LogGPParams> levels, const SimOptions& options = {});

// Same for an algorithm given by value: a builder that is not (yet) in the registry — a new
// tree to try out, a variant under study. Its `coll` must be the request's. `pairs`, `clusters`:
// see PairParams and ClusterParams (their cluster ids are looked up in `map`).
SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::PLogPParams> levels, const SimOptions& options = {},
                   std::span<const PairParams<model::PLogPParams>> pairs = {},
                   std::span<const ClusterParams<model::PLogPParams>> clusters = {});
SimResult simulate(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
                   std::span<const model::LogGPParams> levels, const SimOptions& options = {},
                   std::span<const PairParams<model::LogGPParams>> pairs = {},
                   std::span<const ClusterParams<model::LogGPParams>> clusters = {});

}  // namespace gridcoll::sim
