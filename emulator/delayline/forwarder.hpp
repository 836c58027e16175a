// The forwarding loop: one thread, epoll over the two TAPs, a timerfd for the next due frame,
// a signalfd for SIGINT/SIGTERM and a timerfd for periodic statistics.
#pragma once

#include <cstddef>
#include <cstdint>

#include "link_model.hpp"
#include "stats.hpp"
#include "tap.hpp"

namespace gridcoll::delayline {

struct ForwarderOptions {
    std::size_t buffer_a_to_b = 64 << 20;  // frame arena of each direction
    std::size_t buffer_b_to_a = 64 << 20;
    int batch = 64;                      // frames read (and written) per TAP per round
    std::int64_t spin_ns = 0;            // busy-wait instead of sleeping when the next frame is this close
    double spin_budget = 0.25;           // at most this share of the time is spent busy-waiting
    bool busy_poll = false;              // never sleep (one core at 100 %, lowest latency)
    std::int64_t stats_interval_ns = 0;  // print statistics this often (0: only at exit)
};

struct ForwarderResult {
    DirectionStats a_to_b;
    DirectionStats b_to_a;
};

// Largest frame a read can return (64 KiB GSO frame or 65535-byte MTU, plus headers).
constexpr std::size_t kMaxFrame = 65536 + 256;

// Sleeps in steps of step_ns (absolute CLOCK_MONOTONIC deadlines) for duration_ns and records
// how late each wake-up is: what any timer-driven program can achieve on this machine now.
LatenessHistogram measure_wakeup_latency(std::int64_t duration_ns, std::int64_t step_ns);

// Forwards until SIGINT or SIGTERM. Blocks those signals in the calling thread.
// Throws std::runtime_error on an unrecoverable I/O error.
ForwarderResult run_forwarder(Tap& a, Tap& b, const LinkParams& a_to_b, const LinkParams& b_to_a,
                              const ForwarderOptions& options);

}  // namespace gridcoll::delayline
