// A FIFO of trivially copyable values in a power-of-two array, allocated once. push() on a
// full ring doubles it (which only happens when a caller sized it too small), so the hot path
// never allocates.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gridcoll::delayline {

template <typename T>
class Ring {
public:
    explicit Ring(std::size_t capacity = 64) : slots_(std::bit_ceil(capacity < 2 ? std::size_t{2} : capacity)) {}

    bool empty() const { return head_ == tail_; }
    std::size_t size() const { return static_cast<std::size_t>(tail_ - head_); }
    std::size_t capacity() const { return slots_.size(); }
    bool full() const { return size() == capacity(); }

    void push(const T& value) {
        if (full()) grow();
        slots_[tail_ & mask()] = value;
        ++tail_;
    }
    T& front() {
        assert(!empty());
        return slots_[head_ & mask()];
    }
    const T& front() const {
        assert(!empty());
        return slots_[head_ & mask()];
    }
    void pop() {
        assert(!empty());
        ++head_;
    }
    // Element by absolute sequence number (head_seq() <= seq < tail_seq()).
    T& at_seq(std::uint64_t seq) { return slots_[seq & mask()]; }
    std::uint64_t head_seq() const { return head_; }
    std::uint64_t tail_seq() const { return tail_; }

private:
    std::size_t mask() const { return slots_.size() - 1; }
    void grow() {
        std::vector<T> bigger(slots_.size() * 2);
        for (std::uint64_t s = head_; s != tail_; ++s) bigger[s & (bigger.size() - 1)] = slots_[s & mask()];
        slots_.swap(bigger);
    }

    std::vector<T> slots_;
    std::uint64_t head_ = 0;
    std::uint64_t tail_ = 0;
};

}  // namespace gridcoll::delayline
