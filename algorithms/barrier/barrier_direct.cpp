// Direct (one-round) barrier — the barrier MagPIe runs among cluster coordinators on a full
// mesh ([MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe: MPI's Collective
// Communication Operations for Clustered Wide Area Systems", PPoPP 1999): every rank sends a
// zero-byte message to every other rank and leaves once it has heard from all of them. One
// message latency, where a tree pays its depth twice; it suits few ranks joined by slow links
// (the site leaders of `leaders`, algorithms/hierarchical/leaders.cpp).
//
//   0 <-> 1, 0 <-> 2, ..., every pair, all at once
//
// Cost: Hockney alpha + (P - 1) o (the sends leave one after another, the round trips
// overlap); PLogP L + (P - 1) g(0). P (P - 1) messages in all.
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include "../core/builders.hpp"

#include <span>
#include <vector>

namespace gridcoll::detail {

Schedule barrier_direct(const Request& r) {
    Schedule s(r.rank, r.size);
    for (int k = 1; k < r.size; ++k) s.send((r.rank + k) % r.size, Span{});
    // Every receive posted at once (a transfer may wait for its receive, as SimGrid's do), then
    // an empty step after all of them: the last step means "heard from all", which a
    // composition running after this barrier waits for.
    std::vector<StepId> heard;
    for (int k = 1; k < r.size; ++k) heard.push_back(s.recv((r.rank - k + r.size) % r.size, Span{}));
    if (!heard.empty()) s.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{}, Span{}}, std::span<const StepId>(heard));
    return s;
}

}  // namespace gridcoll::detail
