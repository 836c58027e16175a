#include "bench_timing.hpp"

#include <vector>

namespace gridcoll::sim {

namespace {
const Span kNothing{Buf::Out, 0, 0};
}

Schedule with_bench_timing(const Schedule& s, int root) {
    const int me = s.rank(), size = s.size();
    Schedule w(me, size);
    w.need_tmp(s.tmp_bytes());
    // The release. The root: a "go" to every other rank, then one step that joins them (its
    // completion starts the clock: bench_clock_start). The others: the "go".
    StepId go = kNoStep;
    if (me == root) {
        std::vector<StepId> sends;
        for (int r = 0; r < size; ++r)
            if (r != root) sends.push_back(w.send(r, kNothing));
        go = w.add(Step{Op::Copy, Order::DstLeft, 0, -1, kNothing, kNothing}, sends);
    } else {
        go = w.recv(root, kNothing);
    }
    // The collective, every step that had no dependency now waiting for the release.
    const auto offset = static_cast<StepId>(w.size_steps());
    std::vector<bool> has_successor(s.size_steps(), false);
    std::vector<StepId> deps;
    for (StepId i = 0; i < s.size_steps(); ++i) {
        deps.clear();
        for (StepId d : s.deps_of(i)) {
            deps.push_back(d + offset);
            has_successor[d] = true;
        }
        if (deps.empty()) deps.push_back(go);
        w.add(s.step(i), deps);
    }
    // The reports, once every step of the collective is done.
    std::vector<StepId> last{go};
    for (StepId i = 0; i < s.size_steps(); ++i)
        if (!has_successor[i]) last.push_back(i + offset);
    const StepId done = w.add(Step{Op::Copy, Order::DstLeft, 0, -1, kNothing, kNothing}, last);
    if (me == root) {
        for (int r = 0; r < size; ++r)
            if (r != root) w.recv(r, kNothing, {done});
    } else {
        w.send(root, kNothing, {done});
    }
    return w;
}

}  // namespace gridcoll::sim
