// The delay queue (arena ring + timer order), the wire size of frames and the lateness
// histogram.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <vector>

#include "delay_queue.hpp"
#include "frame.hpp"
#include "rng.hpp"
#include "stats.hpp"

using namespace gridcoll::delayline;

namespace {

void fill(std::byte* p, std::uint32_t len, std::uint32_t tag) {
    for (std::uint32_t i = 0; i < len; ++i) p[i] = static_cast<std::byte>((tag * 31 + i) & 0xff);
}
bool check(const std::byte* p, std::uint32_t len, std::uint32_t tag) {
    for (std::uint32_t i = 0; i < len; ++i) {
        if (p[i] != static_cast<std::byte>((tag * 31 + i) & 0xff)) return false;
    }
    return true;
}

}  // namespace

TEST(DelaylineDelayQueue, OrderedFramesComeOutIntactOverManyLaps) {
    // A small arena (64 KiB, max frame 9000) wraps hundreds of times.
    DelayQueue q(64 * 1024, 9000, true);
    Rng r(5);
    std::deque<std::pair<std::uint32_t, std::uint32_t>> expected;  // (tag, len)
    std::uint32_t tag = 0;
    std::int64_t now = 0;
    std::uint64_t delivered = 0, refused = 0;
    for (int step = 0; step < 200000; ++step) {
        now += 1000;
        if (r.uniform01() < 0.55) {  // arrive
            if (std::byte* p = q.reserve()) {
                const auto len = static_cast<std::uint32_t>(r.uniform_int(1, 9000));
                fill(p, len, tag);
                q.commit(len, now + 50'000);
                expected.emplace_back(tag++, len);
            } else {
                ++refused;
            }
        }
        while (const DelayQueue::Frame* f = q.peek_due(now)) {
            ASSERT_FALSE(expected.empty());
            ASSERT_EQ(f->len, expected.front().second);
            ASSERT_TRUE(check(q.data(*f), f->len, expected.front().first)) << "frame " << expected.front().first;
            expected.pop_front();
            q.release();
            ++delivered;
        }
        ASSERT_LE(q.bytes_in_flight(), q.arena_bytes());
    }
    EXPECT_GT(delivered, 20000u);
    EXPECT_GT(refused, 0u);  // the arena did fill up
    EXPECT_EQ(q.size(), expected.size());
}

TEST(DelaylineDelayQueue, NothingIsDeliveredEarly) {
    DelayQueue q(1 << 20, 1514, true);
    for (int i = 0; i < 100; ++i) {
        ASSERT_NE(q.reserve(), nullptr);
        q.commit(100, 1000 + i);
    }
    EXPECT_EQ(q.next_due(), 1000);
    EXPECT_EQ(q.peek_due(999), nullptr);
    int n = 0;
    while (q.peek_due(1049)) {
        q.release();
        ++n;
    }
    EXPECT_EQ(n, 50);
    EXPECT_EQ(q.next_due(), 1050);
}

TEST(DelaylineDelayQueue, FullArenaRefusesThenRecovers) {
    DelayQueue q(16 * 1024, 1514, true);  // room for a handful of maximum frames
    int held = 0;
    while (std::byte* p = q.reserve()) {
        fill(p, 1514, 0);
        q.commit(1514, 0);
        ++held;
        ASSERT_LT(held, 100);
    }
    EXPECT_GE(held, 8);  // 16 KiB / 1536-byte slots, less the room for one reservation
    EXPECT_EQ(q.reserve(), nullptr);
    ASSERT_NE(q.peek_due(0), nullptr);
    q.release();
    EXPECT_NE(q.reserve(), nullptr);
}

TEST(DelaylineDelayQueue, ReorderModeDeliversByDueTime) {
    DelayQueue q(1 << 20, 1514, false);
    Rng r(9);
    std::vector<std::int64_t> dues;
    for (std::uint32_t i = 0; i < 1000; ++i) {
        std::byte* p = q.reserve();
        ASSERT_NE(p, nullptr);
        const std::int64_t due = r.uniform_int(0, 100000);
        fill(p, 200, i);
        std::memcpy(p, &i, sizeof i);
        q.commit(200, due);
        dues.push_back(due);
    }
    std::int64_t prev = -1;
    int n = 0;
    while (const DelayQueue::Frame* f = q.peek_due(INT64_MAX - 1)) {
        ASSERT_GE(f->due_ns, prev);
        std::uint32_t tag = 0;
        std::memcpy(&tag, q.data(*f), sizeof tag);
        ASSERT_EQ(dues[tag], f->due_ns);
        prev = f->due_ns;
        q.release();
        ++n;
    }
    EXPECT_EQ(n, 1000);
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.bytes_in_flight(), 0u);
}

TEST(DelaylineDelayQueue, ReorderModeFreesMemoryInArrivalOrder) {
    DelayQueue q(1 << 20, 1514, false);
    q.reserve();
    q.commit(1000, 500);  // first in, last out
    q.reserve();
    q.commit(1000, 100);
    const std::size_t in_flight = q.bytes_in_flight();
    ASSERT_NE(q.peek_due(100), nullptr);
    q.release();
    EXPECT_EQ(q.bytes_in_flight(), in_flight);  // the first frame still pins the ring
    EXPECT_EQ(q.size(), 2u);
    ASSERT_NE(q.peek_due(500), nullptr);
    q.release();
    EXPECT_EQ(q.bytes_in_flight(), 0u);
    EXPECT_TRUE(q.empty());
}

TEST(DelaylineFrame, PlainFramesCostTheirLength) {
    std::vector<std::byte> f(1514);
    const WireSize w = wire_size(f.data(), f.size(), 0);
    EXPECT_EQ(w.bytes, 1514u);
    EXPECT_EQ(w.segments, 1u);
}

TEST(DelaylineFrame, GsoSuperFrameCostsItsSegments) {
    // vnet header + Ethernet + IPv4 (20) + TCP with timestamps (32) + 10000 bytes, mss 1448.
    const std::size_t hdrs = 14 + 20 + 32;
    std::vector<std::byte> f(kVnetHdrLen + hdrs + 10000);
    VnetHdr h{};
    h.flags = kVnetFlagNeedsCsum;
    h.gso_type = kVnetGsoTcpV4;
    h.gso_size = 1448;
    h.hdr_len = static_cast<std::uint16_t>(hdrs);
    std::memcpy(f.data(), &h, sizeof h);
    std::byte* eth = f.data() + kVnetHdrLen;
    eth[12] = std::byte{0x08};
    eth[13] = std::byte{0x00};
    eth[14] = std::byte{0x45};            // IPv4, 20-byte header
    eth[14 + 9] = std::byte{6};           // TCP
    eth[14 + 20 + 12] = std::byte{0x80};  // data offset 8 words = 32 bytes
    const WireSize w = wire_size(f.data(), f.size(), kVnetHdrLen);
    EXPECT_EQ(w.segments, 7u);  // ceil(10000 / 1448)
    EXPECT_EQ(w.bytes, 10000u + 7 * hdrs);

    // Not GSO: just the frame without the vnet header.
    h.gso_type = kVnetGsoNone;
    std::memcpy(f.data(), &h, sizeof h);
    EXPECT_EQ(wire_size(f.data(), f.size(), kVnetHdrLen).bytes, hdrs + 10000);
}

// A TCP segment is told apart by the IP header's length: no data (an acknowledgement, even with
// Ethernet padding after it) or some; anything not TCP never counts as an acknowledgement.
TEST(DelaylineFrame, TcpSegmentsWithoutDataAreAcknowledgements) {
    const auto frame = [](std::size_t ip_len, std::size_t wire, unsigned proto) {
        std::vector<std::byte> f(wire);
        f[12] = std::byte{0x08};
        f[14] = std::byte{0x45};
        f[16] = std::byte{static_cast<unsigned char>(ip_len >> 8)};
        f[17] = std::byte{static_cast<unsigned char>(ip_len & 0xff)};
        f[14 + 9] = std::byte{static_cast<unsigned char>(proto)};
        f[14 + 20 + 12] = std::byte{0x80};  // 32-byte TCP header
        return f;
    };
    auto ack = frame(52, 66, 6), padded = frame(52, 80, 6), data = frame(52 + 1448, 1514, 6), udp = frame(28, 60, 17);
    EXPECT_TRUE(wire_size(ack.data(), ack.size(), 0).no_payload);
    EXPECT_TRUE(wire_size(padded.data(), padded.size(), 0).no_payload);
    EXPECT_FALSE(wire_size(data.data(), data.size(), 0).no_payload);
    EXPECT_FALSE(wire_size(udp.data(), udp.size(), 0).no_payload);
    std::vector<std::byte> with_vnet(kVnetHdrLen);  // offloads on, not GSO
    with_vnet.insert(with_vnet.end(), ack.begin(), ack.end());
    EXPECT_TRUE(wire_size(with_vnet.data(), with_vnet.size(), kVnetHdrLen).no_payload);
}

TEST(DelaylineStats, LatenessQuantiles) {
    LatenessHistogram h;
    for (int i = 0; i < 990; ++i) h.record(2'500);   // 2.5 us
    for (int i = 0; i < 10; ++i) h.record(400'000);  // 400 us
    EXPECT_EQ(h.count(), 1000u);
    EXPECT_EQ(h.quantile_ns(0.5), 3'000);  // upper edge of the 2..3 us bin
    EXPECT_EQ(h.quantile_ns(0.99), 3'000);
    EXPECT_EQ(h.quantile_ns(0.999), 400'000);
    EXPECT_EQ(h.max_ns(), 400'000);
    EXPECT_NEAR(h.mean_ns(), (990 * 2500.0 + 10 * 400000.0) / 1000, 1e-6);
    h.record(50'000'000);  // beyond the bins
    EXPECT_EQ(h.quantile_ns(1.0), 50'000'000);
    const std::string s = format_stats("A->B", DirectionStats{});
    EXPECT_NE(s.find("A->B rx 0"), std::string::npos) << s;
}
