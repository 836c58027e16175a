// The event simulator's ranks: building and packing their schedules (arena blocks), starting
// them at time 0, rebuilding passive ones dropped under the memory budget, and the report of a
// run that got stuck (simulator_engine.hpp).
#include "simulator_engine.hpp"
#include "simulator_network.hpp"
#include "simulator_steps.hpp"

namespace gridcoll::sim::detail {

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

Simulator::Simulator(const Request& proto, const Algorithm& algorithm, const Topology* topology, const LevelMap* map,
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
    // The sites' network below a shared level, where the Topology has one: its messages ride
    // their routes' links (routed_links.hpp), not a link per cluster pair.
    for (int l = 0; l < 32 && req_.topology; ++l) {
        if (!((opt_.shared_link_levels >> l) & 1u)) continue;
        const SiteNetwork* net = req_.topology->site_network(l + 1);
        if (!net || net->empty()) continue;
        routed_level_ = l;
        net_ = net;
        routed_.set_network(*net, opt_.cross_traffic);
        break;
    }
}

// Builds rank r's schedule and packs it into a new arena block; returns the header.
RankHdr* Simulator::build(int r) {
    req_.rank = r;
    const Schedule s = build_schedule();
    ++res_.counters.schedules_built;
    return pack(r, s);
}

// True when all rank r's time-0 work is posting receives: every step without dependencies
// is a receive (none can complete before a message comes). Such a rank is passive.
bool Simulator::only_receives_at_zero(const Schedule& s) {
    if (s.empty()) return false;
    for (const Step& st : s.steps())
        if (st.dep_count == 0 && st.op != Op::Recv) return false;
    return true;
}

// Packs rank r's schedule into a new arena block; returns the header.
// Receive queues of the schedule in graph_, sorted by (peer, channel) into rqtmp_: where an
// arriving message finds its receive.
void Simulator::receive_queues(int r) {
    rqtmp_.clear();
    for (const StepGraph::Queue& q : graph_.queues()) {
        if (q.peer >= P_)
            throw Error("simulate: rank " + std::to_string(r) + " step " + std::to_string(q.first) + " names peer " +
                        std::to_string(q.peer) + " of " + std::to_string(P_) + " ranks");
        if (q.recv) rqtmp_.push_back(RecvQ{q.peer * kChannels + q.channel, q.first});
    }
    if (rqtmp_.size() > 1)
        std::sort(rqtmp_.begin(), rqtmp_.end(), [](const RecvQ& x, const RecvQ& y) { return x.peer < y.peer; });
}

RankHdr* Simulator::pack(int r, const Schedule& s) {
    if (s.size_steps() >= kMaxSteps)
        throw Error("simulate: rank " + std::to_string(r) + " has " + std::to_string(s.size_steps()) +
                    " steps (the simulator's limit is 2^27 - 1 a rank)");
    const auto n = static_cast<std::uint32_t>(s.size_steps());
    graph_.build(s);  // successors and posting queues (gridcoll/step_graph.hpp)
    receive_queues(r);
    // Successor lists: steps with two or more successors get room in the successor array.
    std::uint32_t n_succ = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t c = graph_.successor_count(i);
        if (c >= 2) n_succ += c + (c >= 255 ? 1 : 0);
    }
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
        p.channel = st.channel;
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
                        std::to_string(len) + " bytes (the simulator's limit is 2^43 - 1)");
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
void Simulator::init_at_zero(int r, RankHdr* h) {
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

void Simulator::start_rank_at_zero(int r) {
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

// Rank r's schedule built on its first message (from `src`), or an error when r had finished.
RankHdr* Simulator::build_on_message(int r, int src) {
    if (state_[static_cast<std::size_t>(r)] == &done_)
        throw Error("simulate: rank " + std::to_string(src) + " sends more messages to rank " + std::to_string(r) +
                    " than rank " + std::to_string(r) + " receives from it (rank " + std::to_string(r) +
                    " had finished)");
    RankHdr* h = build(r);
    count_active();
    const std::uint64_t pushed = pushed_;
    init_at_zero(r, h);
    if (pushed_ != pushed || done(r))
        throw Error("simulate: the builder of rank " + std::to_string(r) + " is not deterministic");
    return h;
}

void Simulator::stuck() {
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

}  // namespace gridcoll::sim::detail
