// The event simulator: the event loop, and the entry points for PLogP and LogGP parameters
// (simulator.hpp; the engine's parts: simulator_engine.hpp).
#include "simulator_engine.hpp"
#include "simulator_network.hpp"
#include "simulator_steps.hpp"

namespace gridcoll::sim::detail {

SimResult Simulator::run() {
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
                envelope(e.a, static_cast<int>(e.b), cost, ref_step(e.cost), ref_channel(e.cost));
                break;
            case eLinkEnter:
                // (without rendezvous the message carries its channel where the receive would be)
                enter_link(e.a, static_cast<int>(e.b), cost, ref_step(e.cost), static_cast<std::uint32_t>(ref_channel(e.cost)));
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
