// The benchmark loop as a backend (gridcoll/backend.hpp) inside an MPI job: every rank of the
// context's communicator calls run() with the same batch; rank 0 hands each finished row to
// the sink. gridcoll-bench is a command line around it; the same code runs on Open MPI and,
// compiled again, under SimGrid SMPI.
//
// Method (paper 001 Figure 6, paper 002 §6.1; algorithms/REFERENCES.md): before each operation
// an acknowledgement barrier (every rank sends ACK to the root, the root answers GO) lines the
// ranks up; the root starts its clock, runs the operation, and stops the clock when every other
// rank has reported completion with a zero-byte message, so operations never pipeline. With
// shape.root = kEveryRoot every rank takes its turn as root. A row reports the median and the
// extremes over the repetitions (summarize()). With Timing::PerRank (`--timing per-rank`), as the
// OSU micro-benchmarks time collectives: after the warm-up, every rank's own clock around `reps`
// calls back to back with one root (the given one, else 0); the row reports the average over the
// ranks of their per-call times and the extremes. That time includes no release or report, so
// one WAN latency shows as one. With verification every operation's result is
// checked at every rank; a wrong one makes the row's verified "FAILED" and each rank that saw
// it prints the first wrong byte to stderr.
#pragma once

#include <string>

#include "gridcoll/runtime/comm_context.hpp"
#include "gridcoll/algorithms/backend.hpp"

namespace gridcoll {

struct MpiBenchSettings {
    bool shared_malloc = false;  // SMPI: fold buffers with SMPI_SHARED_MALLOC (no verification)
    int inject_error = -1;       // testing: corrupt one output byte at this rank after each operation
};

class MpiBackend final : public Backend {
public:
    MpiBackend(CommContext& ctx, MpiBenchSettings settings = {}) : ctx_(ctx), settings_(settings) {}
    std::string name() const override;  // "openmpi" or "smpi"
    // validate(batch) plus: the batch's shape is the context's communicator (ranks, Topology).
    void check(const Batch& batch) const override;
    // Collective over the context's communicator; the sink is called at rank 0 only.
    void run(const Batch& batch, const RowSink& sink) override;

private:
    CommContext& ctx_;
    MpiBenchSettings settings_;
};

}  // namespace gridcoll
