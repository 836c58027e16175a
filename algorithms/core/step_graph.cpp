#include "gridcoll/algorithms/step_graph.hpp"

#include <string>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll {

void StepGraph::build(const Schedule& s) {
    const auto n = static_cast<std::uint32_t>(s.size_steps());
    // One pass over the steps: successor counts, and the queues — a small hash table from
    // (peer, channel, direction) to the queue links each new step behind the queue's last one.
    succ_begin_.assign(n + 1, 0);
    queue_of_.resize(n);
    next_.assign(n, kNoStep);
    queues_.clear();
    last_.clear();
    std::size_t cap = 16;
    while (cap < 2 * static_cast<std::size_t>(n)) cap *= 2;
    if (hkey_.size() < cap) {
        hkey_.assign(cap, 0);
        hval_.assign(cap, kNoQueue);
    }
    const std::size_t mask = hkey_.size() - 1;
    touched_.clear();
    for (StepId i = 0; i < n; ++i) {
        for (StepId d : s.deps_of(i)) ++succ_begin_[d];
        const Step& st = s.step(i);
        if (st.op != Op::Send && st.op != Op::Recv) {
            queue_of_[i] = kNoQueue;
            continue;
        }
        if (st.peer < 0)
            throw Error("schedule of rank " + std::to_string(s.rank()) + ": step " + std::to_string(i) + " names peer " +
                        std::to_string(st.peer));
        const bool recv = st.op == Op::Recv;
        const std::uint64_t k = (static_cast<std::uint64_t>(st.peer) << 16) | (static_cast<std::uint64_t>(st.channel) << 1) | (recv ? 1u : 0u);
        std::size_t at = static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
        while (hval_[at] != kNoQueue && hkey_[at] != k) at = (at + 1) & mask;
        std::uint32_t q = hval_[at];
        if (q == kNoQueue) {
            q = static_cast<std::uint32_t>(queues_.size());
            hkey_[at] = k;
            hval_[at] = q;
            touched_.push_back(static_cast<std::uint32_t>(at));
            queues_.push_back(Queue{st.peer, recv, i, st.channel});
            last_.push_back(i);
        } else {
            next_[last_[q]] = i;
            last_[q] = i;
        }
        queue_of_[i] = q;
    }
    for (std::uint32_t at : touched_) hval_[at] = kNoQueue;
    // Successor lists (CSR): running sums make succ_begin_[d] the end of d's list; filling from
    // the last step backwards moves it to the list's start and keeps each list in schedule order.
    for (std::uint32_t i = 1; i < n; ++i) succ_begin_[i] += succ_begin_[i - 1];
    succ_begin_[n] = n ? succ_begin_[n - 1] : 0;
    succ_.resize(succ_begin_[n]);
    for (StepId i = n; i-- > 0;)
        for (StepId d : s.deps_of(i)) succ_[--succ_begin_[d]] = i;
}

}  // namespace gridcoll
