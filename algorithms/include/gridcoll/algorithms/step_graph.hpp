// What every consumer of a schedule derives from it (the executor, the checker and the event
// simulator): the successor lists of the dependency graph, and the posting queues of the FIFO
// matching rule (schedule.hpp) — one queue per (peer, channel, direction) holding that peer's
// sends (or receives) on that channel in schedule order. A step may be posted once it is ready and every step before
// it in its queue has been posted.
//
// build() reuses the graph's memory, so a consumer that derives many schedules (the event
// simulator: one per simulated rank) allocates only while the schedules grow.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll {

class StepGraph {
public:
    struct Queue {
        std::int32_t peer;
        bool recv;    // receives from `peer` (else sends to it)
        StepId first; // its first step in schedule order
        int channel = 0;
    };

    StepGraph() = default;
    explicit StepGraph(const Schedule& s) { build(s); }

    // Derives the graph of `s`. Throws Error for a Send or Recv whose peer is negative.
    void build(const Schedule& s);

    std::size_t steps() const { return next_.size(); }
    // The steps that depend on step i, in schedule order.
    std::span<const StepId> successors(StepId i) const {
        return {succ_.data() + succ_begin_[i], succ_begin_[i + 1] - succ_begin_[i]};
    }
    std::uint32_t successor_count(StepId i) const { return succ_begin_[i + 1] - succ_begin_[i]; }

    // The queues, in order of their first step.
    const std::vector<Queue>& queues() const { return queues_; }
    // Communication step i's queue (an index into queues()); local steps have none (kNoQueue).
    static constexpr std::uint32_t kNoQueue = 0xffffffffu;
    std::uint32_t queue_of(StepId i) const { return queue_of_[i]; }
    // The step after i in i's queue, or kNoStep (also for local steps).
    StepId next_in_queue(StepId i) const { return next_[i]; }

private:
    std::vector<std::uint32_t> succ_begin_;  // steps + 1
    std::vector<StepId> succ_;
    std::vector<std::uint32_t> queue_of_;
    std::vector<StepId> next_;
    std::vector<Queue> queues_;
    // Scratch: open-addressing table (peer, channel, recv) -> queue index, and each queue's last step.
    std::vector<std::uint64_t> hkey_;
    std::vector<std::uint32_t> hval_, last_, touched_;
};

}  // namespace gridcoll
