// Message segmentation: a message of `total` bytes cut into segments of `seg` bytes (the last
// one shorter when seg does not divide total). A zero-byte message has no segments; a zero
// segment size means one segment. Segment sizes are rounded down to whole elements.
#pragma once

#include <algorithm>
#include <cstdint>

#include "gridcoll/algorithms/schedule.hpp"

namespace gridcoll {

class Segments {
public:
    Segments(std::uint64_t total, std::uint64_t seg, std::uint64_t elem = 1) : total_(total) {
        if (elem == 0) elem = 1;
        if (seg == 0 || seg >= total) {
            seg_ = total;
        } else {
            seg_ = std::max<std::uint64_t>(elem, seg / elem * elem);
        }
    }
    std::uint64_t total() const { return total_; }
    std::uint64_t seg() const { return seg_; }
    std::uint64_t count() const { return seg_ == 0 ? 0 : (total_ + seg_ - 1) / seg_; }
    std::uint64_t offset(std::uint64_t k) const { return k * seg_; }
    std::uint64_t length(std::uint64_t k) const { return std::min(seg_, total_ - k * seg_); }
    // Segment k of the range [base, base + total) of buffer b.
    Span span(Buf b, std::uint64_t k, std::uint64_t base = 0) const {
        return Span{b, base + offset(k), length(k)};
    }

private:
    std::uint64_t total_;
    std::uint64_t seg_;
};

}  // namespace gridcoll
