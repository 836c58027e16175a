// Flat-tree (linear) fan-in/fan-out barrier — paper 002 §4.2 "Barrier", Table 1 "Flat-Tree".
// Every rank reports to rank 0 with a zero-byte message; once rank 0 has heard from all of
// them it sends each one a zero-byte release.
//
//   fan-in:   1 -> 0, 2 -> 0, ..., P-1 -> 0      (rank 0 posts all P-1 receives at once)
//   fan-out:  0 -> 1, 0 -> 2, ..., 0 -> P-1      (after every report is in)
//
// Cost: Hockney (P-1) alpha; PLogP T_min = P g + 2 L, T_max = P (g + o_r) + 2 (L - o_r)
//       (the paper counts one zero-byte receive for the fan-in, see its §5).
//
// References: [P002] §4.2, §5, Table 1 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

#include <vector>

namespace gridcoll::detail {

Schedule barrier_flat(const Request& r) {
    Schedule s(r.rank, r.size);
    if (r.rank != 0) {
        s.send(0, Span{});
        s.recv(0, Span{});
        return s;
    }
    std::vector<StepId> reports;
    for (int p = 1; p < r.size; ++p) reports.push_back(s.recv(p, Span{}));
    for (int p = 1; p < r.size; ++p) {
        Step release;
        release.op = Op::Send;
        release.peer = p;
        s.add(release, reports);
    }
    return s;
}

}  // namespace gridcoll::detail
