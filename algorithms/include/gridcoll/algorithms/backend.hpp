// The layer under every front end (DESIGN.md "One operation, several backends"): a Backend runs
// or predicts operations and returns result rows. Implementations:
//
//   model::ClosedFormBackend   the papers' closed forms              algorithms/model/closed_form_backend.hpp
//   sim::EventBackend          the schedule event simulator          sim/include/gridcoll/event_backend.hpp
//   sim::SmpiBackend           gridcoll-bench under SimGrid's smpirun sim/include/gridcoll/smpi_backend.hpp
//   MpiBackend                 the benchmark loop inside an MPI job   runtime/include/gridcoll/runtime/bench.hpp (Open MPI and SMPI)
//   emulate::EmulatedBackend   gridcoll-bench across a testbed        emulator/testbed/emulated_backend.hpp
//
// A Batch is what one call runs: one collective on one communicator (its size, Topology, root,
// reduction type and operation), several methods times several message sizes, and how to
// measure (repetitions, warm-up, verification).
#pragma once

#include <string>
#include <vector>

#include "gridcoll/algorithms/operation.hpp"
#include "gridcoll/algorithms/result.hpp"

namespace gridcoll {

// How an MPI backend times a point (result.hpp's timing column).
enum class Timing : std::uint8_t {
    Root,     // the root's clock around one call, between an acknowledgement barrier and reports
    PerRank,  // each rank's own clock around back-to-back calls (OSU's way); one root
    Sync,     // simulated time: every rank starts at once, until the last one is done (no release or report)
};
std::string_view to_string(Timing t);  // "root", "per-rank", "sync"
// Throws Error naming the valid values.
Timing parse_timing(std::string_view text);

struct Batch {
    Operation shape;  // everything but method and bytes, which vary per point
    std::vector<Method> methods;
    std::vector<std::uint64_t> sizes;
    int reps = 5;    // timed repetitions per point (root rotating when shape.root is kEveryRoot)
    int warmup = 1;  // untimed repetitions first
    bool verify = true;
    Timing timing = Timing::Root;
    std::string rules;  // decision rules file for 'auto' (model/rules.hpp); empty: the builtin decision (resolver.hpp)

    // The points, method by method, size by size (a barrier: one point per method, 0 bytes).
    std::vector<Operation> operations() const;
};

// Validates every point (validate(Operation); an 'auto' point as the method its rules give it) and
// the counts; throws the first Error (a rules file's names its line).
void validate(const Batch& b);

class Backend {
public:
    virtual ~Backend() = default;
    // The backend column of its rows (e.g. "smpi", "event-plogp").
    virtual std::string name() const = 0;
    // Throws Error when this backend cannot run the batch (e.g. 'native' in the event
    // simulator), before anything starts. The default checks validate(batch).
    virtual void check(const Batch& batch) const;
    // Runs every point, handing each row to `sink` as soon as it is known. A point whose result
    // was wrong has verified = "FAILED"; a backend that cannot run at all throws Error.
    virtual void run(const Batch& batch, const RowSink& sink) = 0;
};

}  // namespace gridcoll
