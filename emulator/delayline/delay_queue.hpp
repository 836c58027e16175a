// The frames in flight in one direction: their bytes in one preallocated arena used as a ring
// (frames stored back to back, 64-byte aligned, in arrival order), and a descriptor per frame
// with its due time.
//
// Frames are read straight into the arena: reserve() hands out room for one maximum-size frame
// at the write position (skipping to the start of the arena when the tail is too short),
// commit() keeps what was actually read. Memory is released in arrival order.
//
// Delivery order: when due times never decrease (constant delay, or jitter with order kept),
// the arrival order is the delivery order and the ring alone is the timer queue. Otherwise
// (reordering allowed) a binary heap of (due, sequence) picks the next frame, and memory is
// released once every earlier frame has gone too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ring.hpp"

namespace gridcoll::delayline {

class DelayQueue {
public:
    struct Frame {
        std::int64_t due_ns;
        std::uint64_t pos;  // absolute arena position (monotonic), pos % arena size is the offset
        std::uint32_t len;
        bool done;
    };

    // arena_bytes is rounded up to a multiple of 64 and must hold at least two maximum frames.
    DelayQueue(std::size_t arena_bytes, std::size_t max_frame, bool ordered);
    ~DelayQueue();
    DelayQueue(const DelayQueue&) = delete;
    DelayQueue& operator=(const DelayQueue&) = delete;

    // Room for max_frame bytes, or nullptr when the arena (or the descriptor table) is full.
    std::byte* reserve();
    // Keeps the first len bytes of the last reservation, to be delivered at due_ns.
    // In ordered mode due_ns must not be earlier than the previous commit's.
    void commit(std::uint32_t len, std::int64_t due_ns);

    bool empty() const { return frames_.empty(); }
    std::size_t size() const { return frames_.size(); }
    std::size_t bytes_in_flight() const { return static_cast<std::size_t>(write_ - read_); }
    std::size_t arena_bytes() const { return arena_size_; }
    std::size_t max_frame() const { return max_frame_; }

    // Due time of the next frame to deliver, INT64_MAX when empty.
    std::int64_t next_due() const;
    // The next frame to deliver if it is due at now_ns, else nullptr. Call release() after use.
    const Frame* peek_due(std::int64_t now_ns);
    std::byte* data(const Frame& f) { return arena_ + (f.pos % arena_size_); }
    // Removes the frame returned by the last peek_due().
    void release();

private:
    struct HeapEntry {
        std::int64_t due_ns;
        std::uint64_t seq;
    };
    void free_done_frames();

    std::byte* arena_ = nullptr;
    std::size_t arena_size_;
    std::size_t max_frame_;
    bool ordered_;
    bool mapped_ = false;
    std::uint64_t write_ = 0;     // next free position
    std::uint64_t read_ = 0;      // position of the oldest frame still held
    std::uint64_t reserved_ = 0;  // position handed out by the last reserve()
    std::size_t max_frames_;
    Ring<Frame> frames_;
    std::vector<HeapEntry> heap_;  // reorder mode only
    std::uint64_t peeked_seq_ = 0;
};

}  // namespace gridcoll::delayline
