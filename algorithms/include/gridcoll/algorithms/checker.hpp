// The schedule checker: proves, without any MPI, that an algorithm is correct for one request.
//
// It builds the schedules of all ranks and executes them symbolically. Every byte carries what
// it is made of (which rank's input, which byte, combined with which other ranks in which
// order), so the checker can tell that every rank ends with exactly the right bytes. Along the
// way it checks that
//   - every span lies inside its buffer, no step writes the user's input buffer, reductions
//     cover whole elements, copies and reductions have equal lengths;
//   - steps that touch overlapping bytes (one of them writing) are ordered by dependencies
//     (so the result does not depend on timing);
//   - every send meets a receive of the same length, under the FIFO matching rule of
//     schedule.hpp and rendezvous semantics (a send completes only when it is received);
//   - no rank deadlocks (dependencies never form a cycle within a rank: schedule.hpp forbids
//     forward dependencies; a cross-rank wait cycle shows up as a deadlock here);
//   - for a barrier, no rank leaves before hearing (transitively) from every rank.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll {

struct CheckResult {
    bool ok = true;
    std::string error;        // empty when ok
    std::uint64_t messages = 0;
    std::uint64_t message_bytes = 0;
    std::uint64_t steps = 0;
};

// Checks the schedules of ranks 0..size-1 (schedules[r].rank() == r) for `proto` (its rank
// field is ignored).
CheckResult check_schedules(const Request& proto, const std::vector<Schedule>& schedules);

// Builds every rank's schedule with `algorithm` and checks them. A builder that throws
// (for example an impossible parameter) is reported as a failure carrying its message.
CheckResult check_algorithm(const Request& proto, std::string_view algorithm);

}  // namespace gridcoll
