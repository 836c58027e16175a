// Packed schedules: one arena block per active rank — a header, the receive queues per peer
// (for FIFO matching), the steps (32 bytes each) and the successor lists of steps with two or
// more successors (a single successor is kept in the step).
// Internal to the event simulator (sim/src/); see gridcoll/event_sim.hpp for the semantics.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim_common.hpp"

namespace gridcoll::sim::detail {

enum : std::uint8_t { kSend = 0, kRecv = 1, kReduce = 2, kCopy = 3 };
// fSendWaits: (SimOptions::rendezvous) a receive matched by a message whose transfer waits for
// the receive to be posted.
enum : std::uint8_t { fReady = 1, fPosted = 2, fBlocked = 4, fArrived = 8, fDone = 16, fSendWaits = 32 };

struct PStep {
    double t;                  // Recv: post time (see claim_now)
    std::uint64_t bytes : 43;  // message / reduction size
    std::uint64_t channel : 5;  // Send/Recv: the schedule's channel (< kChannels = 32)
    std::uint64_t op : 2;
    std::uint64_t flags : 6;
    std::uint64_t nsucc : 8;  // successors: 0, 1 (in `succ`), 2..254 (at `succ` in the
                              // successor array), 255 (count first, then the list)
    std::int32_t peer;
    std::uint32_t pending;  // unfinished dependencies
    std::uint32_t succ;     // the successor (nsucc = 1) or where its list starts
    std::uint32_t next_q;   // next step of the same (peer, direction) queue; once a receive
                            // is posted and matched this link is spent, and it chains the
                            // receives waiting for the CPU instead
};
static_assert(sizeof(PStep) == 32);
constexpr std::uint64_t kMaxBytes = (std::uint64_t{1} << 43) - 1;

struct RecvQ {
    std::int32_t peer;   // the peer's rank x kChannels + the channel
    std::uint32_t next;  // the receive the next message from it will match
};

struct RankHdr {
    double cpu_free;
    double out_free;
    double in_free;
    double last_done;  // latest completion of a step finished without an event
    std::uint32_t n;
    std::uint32_t remaining;
    std::uint32_t n_succ;  // size of the successor array
    std::uint32_t n_rq;
    std::uint32_t wait_head;  // receives waiting for the CPU (FIFO), kNone if none
    std::uint32_t wait_tail;
    std::uint32_t retry;  // 1 while a RecvRetry event is queued for this rank
};

static_assert(sizeof(RankHdr) % alignof(PStep) == 0 && sizeof(RecvQ) % alignof(PStep) == 0);

// Block layout: header, receive queues (an arriving message reads both), steps, successor lists.
inline RecvQ* rq_of(RankHdr* h) { return reinterpret_cast<RecvQ*>(h + 1); }
inline PStep* steps_of(RankHdr* h) { return reinterpret_cast<PStep*>(rq_of(h) + h->n_rq); }
inline std::uint32_t* succ_of(RankHdr* h) { return reinterpret_cast<std::uint32_t*>(steps_of(h) + h->n); }
inline std::size_t block_bytes(std::uint32_t n, std::uint32_t n_succ, std::uint32_t n_rq) {
    return sizeof(RankHdr) + n_rq * sizeof(RecvQ) + n * sizeof(PStep) + n_succ * sizeof(std::uint32_t);
}

}  // namespace gridcoll::sim::detail
