// Counters of one direction, and a histogram of how late frames were handed to the kernel
// relative to their due time (the delay line's own contribution to jitter).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace gridcoll::delayline {

class LatenessHistogram {
public:
    // 1 us bins up to 10 ms, then one overflow bin; exact maximum and sum kept aside.
    static constexpr std::size_t kBins = 10000;

    void record(std::int64_t late_ns) {
        if (late_ns < 0) late_ns = 0;
        const auto us = static_cast<std::uint64_t>(late_ns / 1000);
        ++bins_[us < kBins ? us : kBins];
        ++count_;
        sum_ns_ += static_cast<std::uint64_t>(late_ns);
        if (late_ns > max_ns_) max_ns_ = late_ns;
    }
    std::uint64_t count() const { return count_; }
    std::int64_t max_ns() const { return max_ns_; }
    double mean_ns() const { return count_ ? static_cast<double>(sum_ns_) / static_cast<double>(count_) : 0.0; }
    // Upper edge of the bin holding quantile q (0 < q <= 1), in ns; max_ns() for the overflow bin.
    std::int64_t quantile_ns(double q) const;

private:
    std::array<std::uint64_t, kBins + 1> bins_{};
    std::uint64_t count_ = 0;
    std::uint64_t sum_ns_ = 0;
    std::int64_t max_ns_ = 0;
};

struct DirectionStats {
    std::uint64_t rx_frames = 0, rx_bytes = 0;  // read from the input TAP
    std::uint64_t tx_frames = 0, tx_bytes = 0;  // written to the output TAP
    std::uint64_t drop_loss = 0;                // random loss
    std::uint64_t drop_queue = 0;               // drop-tail queue limit
    std::uint64_t drop_buffer = 0;              // delay-line buffer full (see --buffer)
    std::uint64_t tx_errors = 0;                // write() to the output TAP failed
    LatenessHistogram late;
};

// "A->B rx 1000 fr 1.5 MB, tx 950 fr 1.4 MB, drop loss 50 queue 0 buffer 0, err 0, late p50 3us p99 40us max 90us"
std::string format_stats(const std::string& name, const DirectionStats& s);

}  // namespace gridcoll::delayline
