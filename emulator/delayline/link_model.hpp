// The model of one direction of an emulated link, with no I/O: given the arrival time and wire
// size of each frame, decide whether it is dropped and when it is delivered.
//
//   arrival --> [drop-tail queue] --> token bucket (rate, burst) --> wire: serialisation
//               (limit: packets        start of transmission        (bytes / rate), loss,
//                or bytes)                                            delay + jitter --> delivery
//
// Rate: a token bucket in its "debt" (GCRA) form. A frame may start transmission when the
// bucket is not in debt; starting it charges its serialisation time bytes * 8 / rate. The bucket
// holds at most `burst` bytes of credit. With burst 0 (the default) this is exactly a link of
// that rate: frame i starts at max(arrival_i, end of frame i-1). Every frame is delivered
// `bytes * 8 / rate` after its start (store and forward, as a real link), then after the delay.
// With burst > 0 up to `burst` bytes (plus the frame that goes into debt) start back to back
// (like tbf's burst); the long-run rate is still exactly `rate` (integer nanoseconds with the
// remainder carried, so no drift).
//
// Queue: frames admitted but not yet started. A frame is dropped at the tail when it would
// take the queue beyond `limit` (packets: more than limit frames waiting; bytes: more than
// limit bytes waiting). Without a rate nothing ever waits, so the limit has no effect.
//
// Loss: Bernoulli with probability `loss` per frame, drawn on the wire, i.e. after the queue:
// a lost frame has used its share of the rate, as a corrupted frame on a real link.
//
// Jitter: added to the delay of each frame, either uniform in [-jitter, +jitter] or normal with
// standard deviation `jitter` clipped to [-3 jitter, +3 jitter]; a frame is never delivered
// before the end of its own serialisation. By default packet order is kept: a frame is never
// delivered before the frame that arrived before it (so a late frame also delays those behind
// it, and the observed jitter distribution is skewed to later times, as on a real FIFO path).
// With keep_order = false frames are delivered purely by their own due time and may reorder
// (netem's behaviour with jitter).
//
// Acknowledgements (acks_skip, which needs keep_order = false): a TCP segment without data starts
// at once instead of waiting behind the queued frames, and is never dropped by the queue; it
// still charges its bytes to the rate, so the frames after it start that much later. A model of
// a link whose two directions are independent (as SimGrid's full-duplex links, which carry no
// acknowledgements at all): on one FIFO a connection's acknowledgements wait behind the other
// way's data, and an exchange both ways at once slows both.
//
// All times are int64 nanoseconds on any monotonic clock; arrivals must be non-decreasing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ring.hpp"
#include "rng.hpp"
#include "units.hpp"

namespace gridcoll::delayline {

enum class JitterDistribution { uniform, normal };

struct LinkParams {
    std::int64_t delay_ns = 0;
    std::int64_t jitter_ns = 0;
    JitterDistribution distribution = JitterDistribution::uniform;
    bool keep_order = true;
    bool acks_skip = false;         // TCP segments without data pass the queue (needs !keep_order)
    double loss = 0.0;              // probability in [0, 1]
    std::uint64_t rate_bps = 0;     // 0: unlimited
    std::uint64_t burst_bytes = 0;  // 0: one frame at a time (a plain link)
    QueueLimit limit{QueueLimit::Unit::packets, 1000};
    std::uint64_t seed = 1;
};

// Applies "key=value,key=value" to params. Keys: delay, jitter, dist (uniform|normal),
// order (keep|any), acks (queue|skip), loss, rate, burst, limit, seed. Throws ParseError naming the bad item.
void apply_link_spec(LinkParams& params, std::string_view spec);
// Throws ParseError when the combination is impossible (negative delay, ...).
void validate(const LinkParams& params);
// Whether frames leave in the order they arrived, so that no heap is needed to order them: due
// times never decrease when order is kept, or without jitter, burst and acknowledgements skipping
// the queue.
inline bool delivered_in_arrival_order(const LinkParams& p) {
    return p.keep_order || (p.jitter_ns == 0 && p.burst_bytes == 0 && !p.acks_skip);
}

// One line: "delay 10ms, jitter 0, loss 0%, rate 1Gbit (burst one frame), queue 1000 packets, seed 1".
std::string describe(const LinkParams& params);

class TokenBucket {
public:
    // rate_bps == 0: unlimited (start = arrival, no serialisation time).
    TokenBucket(std::uint64_t rate_bps, std::uint64_t burst_bytes);

    struct Slot {
        std::int64_t start_ns;  // when transmission starts
        std::int64_t tx_ns;     // serialisation time of this frame
    };
    // Schedules one frame of `bytes` arriving at `arrival_ns` (after all earlier frames).
    Slot schedule(std::int64_t arrival_ns, std::uint64_t bytes);
    // Schedules one frame that starts on arrival, ahead of any waiting ones; its bytes are
    // charged as schedule's are, so the frames after it start that much later.
    Slot schedule_at_once(std::int64_t arrival_ns, std::uint64_t bytes);
    // When a frame arriving at `now` would start (without scheduling it).
    std::int64_t next_start(std::int64_t now_ns) const;

private:
    std::uint64_t rate_bps_;
    std::int64_t tau_ns_;          // burst credit expressed as time (burst * 8 / rate)
    std::int64_t debt_until_ = 0;  // the bucket is out of debt from this time on (GCRA's TAT)
    std::uint64_t remainder_ = 0;  // bit-nanoseconds not yet charged, carried to the next frame
    bool started_ = false;
};

class LinkModel {
public:
    explicit LinkModel(const LinkParams& params);

    enum class Fate { deliver, drop_queue, drop_loss };
    struct Verdict {
        Fate fate;
        std::int64_t due_ns;  // delivery time when fate == deliver
    };
    // One frame of `bytes` (as counted on the wire) arrives at `now_ns`. A GSO super-frame
    // standing for `segments` frames on the wire counts as that many packets in the queue, and
    // is lost with the probability that any of its segments would be: 1 - (1 - loss)^segments.
    // `no_payload`: a TCP segment without data (passes the queue with acks_skip).
    Verdict arrive(std::int64_t now_ns, std::uint64_t bytes, std::uint32_t segments = 1, bool no_payload = false);

    // Frames / bytes waiting in the queue at `now_ns` (not yet started transmission).
    std::uint64_t queued_packets(std::int64_t now_ns);
    std::uint64_t queued_bytes(std::int64_t now_ns);

    const LinkParams& params() const { return params_; }

private:
    std::int64_t jitter();
    void expire(std::int64_t now_ns);

    struct Waiting {
        std::int64_t start_ns;
        std::uint64_t bytes;
        std::uint64_t packets;
    };

    LinkParams params_;
    TokenBucket bucket_;
    Rng rng_;
    std::uint64_t loss_threshold_;
    bool loss_all_;
    Ring<Waiting> waiting_;
    std::uint64_t waiting_bytes_ = 0;
    std::uint64_t waiting_packets_ = 0;
    std::int64_t last_due_ = INT64_MIN;
};

}  // namespace gridcoll::delayline
