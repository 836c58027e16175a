// The link model alone: delay, token bucket, queue limit, loss and jitter, on synthetic
// arrival times (no TAP, no clock).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "link_model.hpp"

using namespace gridcoll::delayline;

namespace {

constexpr std::int64_t kMs = 1'000'000;

LinkParams delay_only(std::int64_t delay_ns) {
    LinkParams p;
    p.delay_ns = delay_ns;
    return p;
}

}  // namespace

TEST(DelaylineLinkModel, ConstantDelayIsExact) {
    LinkModel m(delay_only(10 * kMs));
    Rng r(7);
    std::int64_t t = 123'456'789;
    for (int i = 0; i < 100000; ++i) {
        t += r.uniform_int(0, 50'000);
        const auto v = m.arrive(t, static_cast<std::uint64_t>(r.uniform_int(60, 1514)));
        ASSERT_EQ(v.fate, LinkModel::Fate::deliver);
        ASSERT_EQ(v.due_ns, t + 10 * kMs);
    }
}

TEST(DelaylineLinkModel, LoneFramePaysItsSerialisation) {
    LinkParams p = delay_only(10 * kMs);
    p.rate_bps = 1'000'000'000;  // 1 Gbit/s: 1500 bytes = 12 us
    LinkModel m(p);
    auto v = m.arrive(1'000'000, 1500);
    EXPECT_EQ(v.due_ns, 1'000'000 + 12'000 + 10 * kMs);
    // Much later the link is idle again: same again.
    v = m.arrive(1'000'000'000, 1500);
    EXPECT_EQ(v.due_ns, 1'000'000'000 + 12'000 + 10 * kMs);
}

TEST(DelaylineLinkModel, BackToBackFramesAreSpacedBySerialisation) {
    LinkParams p;
    p.rate_bps = 100'000'000;  // 100 Mbit/s: 1000 bytes = 80 us
    p.limit = {QueueLimit::Unit::packets, 100};
    LinkModel m(p);
    for (int i = 0; i < 10; ++i) {
        const auto v = m.arrive(0, 1000);
        ASSERT_EQ(v.fate, LinkModel::Fate::deliver);
        EXPECT_EQ(v.due_ns, (i + 1) * 80'000);
    }
}

TEST(DelaylineLinkModel, TokenBucketRateIsExactOverALongRun) {
    // A rate whose per-byte time is not a whole number of nanoseconds (7 Mbit/s: 1142.857 ns/byte):
    // the carried remainder must keep the long-run rate exact.
    for (const std::uint64_t rate : {7'000'000ULL, 1'000'000'000ULL, 3'300'000'000ULL}) {
        LinkParams p;
        p.rate_bps = rate;
        p.limit = {QueueLimit::Unit::packets, 1u << 30};
        LinkModel m(p);
        Rng r(3);
        unsigned __int128 bits = 0;
        std::int64_t last_due = 0;
        for (int i = 0; i < 1'000'000; ++i) {
            const auto bytes = static_cast<std::uint64_t>(r.uniform_int(60, 1514));
            bits += bytes * 8;
            const auto v = m.arrive(0, bytes);  // everything offered at once: the link never idles
            ASSERT_EQ(v.fate, LinkModel::Fate::deliver);
            last_due = v.due_ns;
        }
        const double expected = static_cast<double>(bits) * 1e9 / static_cast<double>(rate);
        EXPECT_LE(std::abs(static_cast<double>(last_due) - expected), 1.0) << "rate " << rate;
    }
}

TEST(DelaylineLinkModel, TokenBucketThroughputUnderOverload) {
    // Poisson arrivals at twice the rate through a 100-packet queue: the delivered throughput
    // over 10 simulated seconds equals the rate.
    LinkParams p;
    p.rate_bps = 50'000'000;
    p.limit = {QueueLimit::Unit::packets, 100};
    LinkModel m(p);
    Rng r(11);
    const double mean_gap_ns = 1500.0 * 8 / 100e6 * 1e9;
    double t = 0;
    std::uint64_t delivered_bits = 0, drops = 0;
    std::int64_t last_due = 0;
    while (t < 10e9) {
        t += -std::log(1.0 - r.uniform01()) * mean_gap_ns;
        const auto v = m.arrive(static_cast<std::int64_t>(t), 1500);
        if (v.fate == LinkModel::Fate::deliver) {
            delivered_bits += 1500 * 8;
            last_due = v.due_ns;
        } else {
            ASSERT_EQ(v.fate, LinkModel::Fate::drop_queue);
            ++drops;
        }
    }
    const double throughput = static_cast<double>(delivered_bits) / (static_cast<double>(last_due) / 1e9);
    EXPECT_NEAR(throughput / 50e6, 1.0, 0.001);
    EXPECT_GT(drops, 0u);
}

TEST(DelaylineLinkModel, BurstLetsFramesStartTogether) {
    LinkParams p;
    p.rate_bps = 8'000'000;  // 1 byte per us
    p.burst_bytes = 4000;
    p.limit = {QueueLimit::Unit::packets, 1000};
    LinkModel m(p);
    // A full bucket (idle link): 4000 bytes of credit, and the frame that goes into debt.
    std::vector<std::int64_t> due;
    for (int i = 0; i < 8; ++i) due.push_back(m.arrive(0, 1000).due_ns);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(due[i], 1'000'000) << i;  // started at 0, 1 ms serialisation
    EXPECT_EQ(due[5], 2'000'000);                                   // then one frame per ms
    EXPECT_EQ(due[6], 3'000'000);
    EXPECT_EQ(due[7], 4'000'000);
    // After a long pause the credit is back, capped at the burst.
    for (int i = 0; i < 6; ++i) due[i] = m.arrive(1'000'000'000, 1000).due_ns;
    EXPECT_EQ(due[4], 1'001'000'000);
    EXPECT_EQ(due[5], 1'002'000'000);
}

TEST(DelaylineLinkModel, QueueLimitInPacketsDropsTheTail) {
    LinkParams p;
    p.rate_bps = 8'000'000;  // 1000 bytes = 1 ms
    p.limit = {QueueLimit::Unit::packets, 10};
    LinkModel m(p);
    int delivered = 0, dropped = 0;
    for (int i = 0; i < 100; ++i) {
        const auto v = m.arrive(0, 1000);
        if (v.fate == LinkModel::Fate::deliver) {
            ++delivered;
        } else {
            EXPECT_EQ(v.fate, LinkModel::Fate::drop_queue);
            ++dropped;
        }
    }
    EXPECT_EQ(delivered, 11);  // one on the wire, ten waiting
    EXPECT_EQ(dropped, 89);
    EXPECT_EQ(m.queued_packets(0), 10u);
    // 3.5 ms later three more have started: three places free.
    EXPECT_EQ(m.queued_packets(3'500'000), 7u);
    int accepted = 0;
    for (int i = 0; i < 5; ++i) accepted += m.arrive(3'500'000, 1000).fate == LinkModel::Fate::deliver;
    EXPECT_EQ(accepted, 3);
}

TEST(DelaylineLinkModel, QueueLimitInBytesDropsTheTail) {
    LinkParams p;
    p.rate_bps = 8'000'000;
    p.limit = {QueueLimit::Unit::bytes, 5000};
    LinkModel m(p);
    EXPECT_EQ(m.arrive(0, 1500).fate, LinkModel::Fate::deliver);  // on the wire
    EXPECT_EQ(m.arrive(0, 2000).fate, LinkModel::Fate::deliver);  // waiting 2000
    EXPECT_EQ(m.arrive(0, 2000).fate, LinkModel::Fate::deliver);  // waiting 4000
    EXPECT_EQ(m.arrive(0, 1500).fate, LinkModel::Fate::drop_queue);
    EXPECT_EQ(m.arrive(0, 1000).fate, LinkModel::Fate::deliver);  // exactly 5000
    EXPECT_EQ(m.arrive(0, 60).fate, LinkModel::Fate::drop_queue);
    EXPECT_EQ(m.queued_bytes(0), 5000u);
    // A frame larger than the whole limit still goes when the link is idle.
    LinkModel idle(p);
    EXPECT_EQ(idle.arrive(0, 9000).fate, LinkModel::Fate::deliver);
}

TEST(DelaylineLinkModel, QueueLimitHasNoEffectWithoutRate) {
    LinkParams p = delay_only(kMs);
    p.limit = {QueueLimit::Unit::packets, 1};
    LinkModel m(p);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(m.arrive(0, 1500).fate, LinkModel::Fate::deliver);
}

TEST(DelaylineLinkModel, LossRateWithFixedSeed) {
    LinkParams p = delay_only(kMs);
    p.loss = 0.05;
    p.seed = 12345;
    LinkModel m(p), same(p);
    p.seed = 54321;
    LinkModel other(p);
    int lost = 0, differences = 0;
    for (int i = 0; i < 100000; ++i) {
        const auto v = m.arrive(i, 100);
        lost += v.fate == LinkModel::Fate::drop_loss;
        ASSERT_EQ(v.fate, same.arrive(i, 100).fate) << "same seed, same losses";
        differences += v.fate != other.arrive(i, 100).fate;
    }
    // 5000 expected, sd 69: +-5 % relative is more than 3.5 sd.
    EXPECT_NEAR(lost, 5000, 250);
    EXPECT_GT(differences, 1000);

    LinkParams none = delay_only(0), all = delay_only(0);
    all.loss = 1.0;
    LinkModel m0(none), m1(all);
    for (int i = 0; i < 10000; ++i) {
        ASSERT_EQ(m0.arrive(i, 100).fate, LinkModel::Fate::deliver);
        ASSERT_EQ(m1.arrive(i, 100).fate, LinkModel::Fate::drop_loss);
    }
}

TEST(DelaylineLinkModel, UniformJitterStaysInBounds) {
    LinkParams p = delay_only(10 * kMs);
    p.jitter_ns = 2 * kMs;
    p.keep_order = false;
    LinkModel m(p);
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    double sum = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        const std::int64_t t = static_cast<std::int64_t>(i) * 100'000;
        const std::int64_t d = m.arrive(t, 100).due_ns - t;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
        sum += static_cast<double>(d);
    }
    EXPECT_GE(lo, 8 * kMs);
    EXPECT_LE(hi, 12 * kMs);
    EXPECT_LT(lo, 8 * kMs + 50'000);  // the whole range is used
    EXPECT_GT(hi, 12 * kMs - 50'000);
    EXPECT_NEAR(sum / n, 10.0 * kMs, 0.02 * kMs);
}

TEST(DelaylineLinkModel, NormalJitterIsClippedAtThreeSd) {
    LinkParams p = delay_only(10 * kMs);
    p.jitter_ns = 1 * kMs;
    p.distribution = JitterDistribution::normal;
    p.keep_order = false;
    LinkModel m(p);
    double sum = 0, sum2 = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        const std::int64_t t = static_cast<std::int64_t>(i) * 100'000;
        const std::int64_t d = m.arrive(t, 100).due_ns - t;
        ASSERT_GE(d, 7 * kMs);
        ASSERT_LE(d, 13 * kMs);
        const double x = static_cast<double>(d - 10 * kMs) / kMs;
        sum += x;
        sum2 += x * x;
    }
    EXPECT_NEAR(sum / n, 0.0, 0.02);
    EXPECT_NEAR(std::sqrt(sum2 / n), 1.0, 0.02);  // clipping at 3 sd removes 0.3 % of the mass
}

TEST(DelaylineLinkModel, JitterKeepsOrderByDefault) {
    LinkParams p = delay_only(10 * kMs);
    p.jitter_ns = 2 * kMs;
    LinkModel m(p);
    std::int64_t prev = INT64_MIN;
    double sum = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) {
        const std::int64_t t = static_cast<std::int64_t>(i) * 10'000;  // 10 us apart, jitter 2 ms
        const std::int64_t due = m.arrive(t, 100).due_ns;
        ASSERT_GE(due, prev);
        // Waiting for an earlier frame never takes a frame beyond the largest delay.
        ASSERT_GE(due - t, 8 * kMs);
        ASSERT_LE(due - t, 12 * kMs);
        sum += static_cast<double>(due - t);
        prev = due;
    }
    // Frames 10 us apart mostly wait for a slower predecessor: delays pile up near the maximum.
    EXPECT_GT(sum / n, 11.5 * kMs);
}

TEST(DelaylineLinkModel, JitterNeverDeliversBeforeSerialisationEnds) {
    LinkParams p = delay_only(1 * kMs);
    p.jitter_ns = 5 * kMs;  // larger than the delay
    p.keep_order = false;
    p.rate_bps = 1'000'000'000;
    LinkModel m(p);
    for (int i = 0; i < 10000; ++i) {
        const std::int64_t t = static_cast<std::int64_t>(i) * 1'000'000;
        ASSERT_GE(m.arrive(t, 1250).due_ns, t + 10'000);  // 1250 bytes at 1 Gbit/s = 10 us
    }
}

TEST(DelaylineLinkModel, SuperFramesCountAsTheirSegments) {
    LinkParams p;
    p.rate_bps = 8'000'000;
    p.limit = {QueueLimit::Unit::packets, 50};
    LinkModel m(p);
    EXPECT_EQ(m.arrive(0, 1000).fate, LinkModel::Fate::deliver);       // on the wire
    EXPECT_EQ(m.arrive(0, 45000, 45).fate, LinkModel::Fate::deliver);  // 45 waiting
    EXPECT_EQ(m.queued_packets(0), 45u);
    EXPECT_EQ(m.arrive(0, 10000, 10).fate, LinkModel::Fate::drop_queue);  // 55 > 50
    EXPECT_EQ(m.arrive(0, 5000, 5).fate, LinkModel::Fate::deliver);       // exactly 50

    // Loss: a 44-segment super-frame is lost as often as any of 44 frames would be.
    LinkParams q;
    q.loss = 0.01;
    q.seed = 77;
    LinkModel lossy(q);
    int lost = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) lost += lossy.arrive(i, 64000, 44).fate == LinkModel::Fate::drop_loss;
    const double expected = 1.0 - std::pow(0.99, 44);  // 0.357
    EXPECT_NEAR(static_cast<double>(lost) / n, expected, 0.005);
}

// With acks=skip a TCP segment without data starts at once, past a full queue, and is never
// dropped by it; its bytes still push back the frames that follow.
TEST(DelaylineLinkModel, AcknowledgementsSkipTheQueueButPayForTheRate) {
    LinkParams p;
    p.rate_bps = 8'000'000;  // 1000 bytes = 1 ms
    p.delay_ns = 10 * kMs;
    p.limit = {QueueLimit::Unit::packets, 4};
    p.keep_order = false;
    p.acks_skip = true;
    LinkModel m(p);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(m.arrive(0, 1000).fate, LinkModel::Fate::deliver);  // one on the wire, four waiting
    EXPECT_EQ(m.arrive(0, 1000).fate, LinkModel::Fate::drop_queue);
    const auto ack = m.arrive(0, 100, 1, true);
    ASSERT_EQ(ack.fate, LinkModel::Fate::deliver);
    EXPECT_EQ(ack.due_ns, 100'000 + 10 * kMs);  // its own 0.1 ms, then the delay: not behind 5 ms of data
    EXPECT_EQ(m.queued_packets(0), 4u);         // and it took no place in the queue
    // The next data frame starts after the five before it and the acknowledgement's 0.1 ms.
    EXPECT_EQ(m.queued_packets(5 * kMs), 0u);
    const auto next = m.arrive(5 * kMs, 1000);
    EXPECT_EQ(next.due_ns, 5 * kMs + 100'000 + kMs + 10 * kMs);

    // Without acks=skip the same segment waits its turn (or is dropped by a full queue).
    p.acks_skip = false;
    LinkModel fifo(p);
    for (int i = 0; i < 5; ++i) fifo.arrive(0, 1000);
    EXPECT_EQ(fifo.arrive(0, 100, 1, true).fate, LinkModel::Fate::drop_queue);
}

// The forwarder orders frames by a heap only where they may leave out of arrival order.
TEST(DelaylineLinkModel, AcknowledgementsSkippingNeedTheDueTimeOrder) {
    LinkParams p;
    EXPECT_TRUE(delivered_in_arrival_order(p));
    p.keep_order = false;
    EXPECT_TRUE(delivered_in_arrival_order(p));  // no jitter, no burst: nothing reorders
    p.acks_skip = true;
    EXPECT_FALSE(delivered_in_arrival_order(p));
    p.acks_skip = false;
    p.jitter_ns = kMs;
    EXPECT_FALSE(delivered_in_arrival_order(p));
}
