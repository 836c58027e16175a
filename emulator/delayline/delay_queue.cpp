#include "delay_queue.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace gridcoll::delayline {

namespace {

constexpr std::size_t kAlign = 64;
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Min-heap on due time; ties by sequence so equal due times leave in arrival order.
bool later(const auto& a, const auto& b) { return a.due_ns != b.due_ns ? a.due_ns > b.due_ns : a.seq > b.seq; }

}  // namespace

DelayQueue::DelayQueue(std::size_t arena_bytes, std::size_t max_frame, bool ordered)
    : arena_size_(round_up(std::max(arena_bytes, 2 * round_up(max_frame, kAlign)), kAlign)),
      max_frame_(max_frame),
      ordered_(ordered),
      max_frames_(arena_size_ / kAlign),
      frames_(std::min<std::size_t>(arena_size_ / kAlign, 1 << 16)) {
    if (max_frame == 0) throw std::invalid_argument("DelayQueue: max_frame must be positive");
    // The arena is mapped and touched up front (MAP_POPULATE) so that no page fault lands in
    // the forwarding path; transparent huge pages cut TLB misses when available.
    void* p = mmap(nullptr, arena_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, arena_size_, MADV_HUGEPAGE);
    arena_ = static_cast<std::byte*>(p);
    mapped_ = true;
    if (!ordered_) heap_.reserve(std::min<std::size_t>(max_frames_, 1 << 16));
}

DelayQueue::~DelayQueue() {
    if (mapped_) munmap(arena_, arena_size_);
}

std::byte* DelayQueue::reserve() {
    if (frames_.size() >= max_frames_) return nullptr;
    std::uint64_t pos = write_;
    if (pos % arena_size_ + max_frame_ > arena_size_) pos = round_up(pos, arena_size_);  // wrap
    if (pos + max_frame_ - read_ > arena_size_) return nullptr;
    reserved_ = pos;
    return arena_ + (pos % arena_size_);
}

void DelayQueue::commit(std::uint32_t len, std::int64_t due_ns) {
    const std::uint64_t seq = frames_.tail_seq();
    frames_.push(Frame{due_ns, reserved_, len, false});
    if (frames_.size() == 1) read_ = reserved_;
    write_ = reserved_ + round_up(std::max<std::size_t>(len, 1), kAlign);
    if (!ordered_) {
        heap_.push_back({due_ns, seq});
        std::push_heap(heap_.begin(), heap_.end(), [](const auto& a, const auto& b) { return later(a, b); });
    }
}

std::int64_t DelayQueue::next_due() const {
    if (frames_.empty()) return INT64_MAX;
    if (ordered_) return frames_.front().due_ns;
    return heap_.front().due_ns;
}

const DelayQueue::Frame* DelayQueue::peek_due(std::int64_t now_ns) {
    if (frames_.empty()) return nullptr;
    if (ordered_) {
        const Frame& f = frames_.front();
        return f.due_ns <= now_ns ? &f : nullptr;
    }
    const HeapEntry& top = heap_.front();
    if (top.due_ns > now_ns) return nullptr;
    peeked_seq_ = top.seq;
    return &frames_.at_seq(top.seq);
}

void DelayQueue::release() {
    if (ordered_) {
        frames_.pop();
    } else {
        std::pop_heap(heap_.begin(), heap_.end(), [](const auto& a, const auto& b) { return later(a, b); });
        heap_.pop_back();
        frames_.at_seq(peeked_seq_).done = true;
        while (!frames_.empty() && frames_.front().done) frames_.pop();
    }
    free_done_frames();
}

void DelayQueue::free_done_frames() { read_ = frames_.empty() ? write_ : frames_.front().pos; }

}  // namespace gridcoll::delayline
