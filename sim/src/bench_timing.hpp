// The MPI bench's timing method (runtime/mpi/bench.cpp, paper 001's), put around a schedule
// so that the event simulator times what gridcoll-bench measures on Open MPI and SMPI:
//   - the release: the root sends a zero-byte "go" to every other rank, and the clock starts
//     once those sends are done; a rank starts the collective when its "go" arrives;
//   - the reports: every other rank sends a zero-byte report to the root once it is done, and
//     the clock stops when the root has them all.
// Both cross the slowest link twice in all: one WAN latency at the start (a remote rank starts
// late, and a message it must receive waits for it under a rendezvous protocol) and one at the
// end. On das and the 32-site grid that is about 20 ms, a fifth of a 64 KiB broadcast.
//
// Internal to sim/.
#pragma once

#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll::sim {

// `s` (rank s.rank() of s.size()) with the release before it and the reports after it, for
// `root`. The root's clock starts when step bench_clock_start(size) of its schedule completes.
Schedule with_bench_timing(const Schedule& s, int root);
inline StepId bench_clock_start(int size) { return static_cast<StepId>(size - 1); }

}  // namespace gridcoll::sim
