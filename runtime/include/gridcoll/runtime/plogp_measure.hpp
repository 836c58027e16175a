// PLogP parameter measurement between two ranks (paper 000 §2.1; paper 002 §3 and §6.1), after
// Kielmann et al.'s logp_mpi. The same source is compiled against Open MPI and SimGrid SMPI.
//
// For every message size m (0 bytes always included), with `sender` A and `receiver` B:
//
//   RTT(m)  ping-pong: A sends m bytes, B answers with m bytes; A's time per round trip.
//           PLogP: RTT(m) = 2 (L + g(m)).
//   g(m)    saturation: B pre-posts n receives and tells A it is ready; A times a zero-byte
//           round trip RTT(0), then issues n MPI_Isend of m bytes in a row and waits for their
//           completion and for B's zero-byte acknowledgement, sent when all n have arrived.
//           Under PLogP that burst takes T(n) = n g(m) + RTT(0) - g(0), so g(m) = (T(n) -
//           RTT(0)) / n (the g(0)/n left over is negligible for the n used): the median over
//           the repetitions of that per-repetition value (timing RTT(0) next to each burst
//           keeps slow drifts out), or with the minimum statistic (min T(n) - min RTT(0)) / n.
//           n = min(gap_max_count, gap_max_bytes / m), at least gap_min_count.
//   os(m)   B sends a zero-byte "go" and then waits a delay D = max(delay_min, delay_factor *
//           RTT(m)) before posting its receive. A, on "go", times MPI_Isend and then MPI_Wait:
//           if the send completed locally (eager: within D / 2, before B can have posted its
//           receive), os(m) = time of MPI_Isend + MPI_Wait; otherwise (rendezvous: the send
//           needs the receiver) os(m) = time of MPI_Isend alone.
//   or(m)   in the same exchange B times its MPI_Recv, posted when the message has surely arrived
//           (D is longer than the one-way transfer RTT(m) / 2 plus the "go" message).
//   L       the mean over the sizes m <= latency_max_bytes of RTT(m) / 2 - g(m).
//
// Each quantity is taken over `reps` repetitions (after `warmup` untimed ones) with the chosen
// statistic (median or minimum); 10 x warmup zero-byte round trips precede everything.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll {

enum class Statistic { Median, Min };

struct PLogPMeasureOptions {
    std::vector<std::uint64_t> sizes;              // message sizes (0 is measured in any case)
    int reps = 10;                                 // timed repetitions of every measurement
    int warmup = 1;                                // untimed repetitions first
    int gap_max_count = 64;                        // n for small messages
    int gap_min_count = 4;                         // n never below this
    std::uint64_t gap_max_bytes = 16u << 20;       // n * m kept under this (receive buffers)
    std::uint64_t latency_max_bytes = 1024;        // L averaged over sizes up to this
    double delay_factor = 1.5;                     // D = max(delay_min, delay_factor * RTT(m))
    double delay_min_s = 1e-4;
    Statistic stat = Statistic::Median;
};

// Throws Error naming the option when a value is out of range.
void validate(const PLogPMeasureOptions& o);

struct PLogPSample {
    std::uint64_t bytes = 0;
    double rtt = 0;  // round-trip time with m bytes each way
    double os = 0;   // send overhead
    double or_ = 0;  // receive overhead
    double g = 0;    // gap (not clamped: may come out slightly negative for noisy tiny values)
    int gap_count = 0;              // n of the saturation burst
    bool local_completion = false;  // the send completed before the receive was posted (eager)
};

struct PLogPMeasurement {
    int sender = -1, receiver = -1;  // ranks of the communicator measured on
    double L = 0;                    // latency (not clamped)
    std::vector<PLogPSample> samples;  // by increasing size, the first of 0 bytes

    // The PLogP parameters: L and the tables os, or, g over the measured sizes, negative values
    // clamped to 0 (params_io requires non-negative values).
    model::PLogPParams params() const;
    // logp_mpi-style remarks: g(m) < os(m) or or(m), negative L or g (clamped in params()).
    std::vector<std::string> warnings() const;

    // A flat form for MPI_Bcast: 3 + 7 * samples.size() doubles.
    std::vector<double> pack() const;
    static PLogPMeasurement unpack(const std::vector<double>& v);
};

// Sorted, duplicate-free sizes with 0 first: the sizes measure_plogp() reports, in order.
std::vector<std::uint64_t> measured_sizes(const std::vector<std::uint64_t>& sizes);

// Called by exactly the two ranks `sender` and `receiver` of `comm` (other ranks must not call
// it); returns the complete measurement at both. Uses tags 7101..7108 of `comm`.
PLogPMeasurement measure_plogp(MPI_Comm comm, int sender, int receiver, const PLogPMeasureOptions& o);

}  // namespace gridcoll
