#include "stats.hpp"

#include <cmath>
#include <cstdio>

#include "units.hpp"

namespace gridcoll::delayline {

std::int64_t LatenessHistogram::quantile_ns(double q) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < bins_.size(); ++i) {
        seen += bins_[i];
        if (seen >= rank && seen > 0) {
            if (i == kBins) return max_ns_;
            const auto edge = static_cast<std::int64_t>((i + 1) * 1000);
            return edge < max_ns_ ? edge : max_ns_;
        }
    }
    return max_ns_;
}

std::string format_stats(const std::string& name, const DirectionStats& s) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s rx %llu fr %.3f MB, tx %llu fr %.3f MB, drop loss %llu queue %llu buffer %llu, tx err %llu, "
                  "late mean %s p50 <%s p99 <%s p99.9 <%s max %s",
                  name.c_str(), static_cast<unsigned long long>(s.rx_frames), static_cast<double>(s.rx_bytes) / 1e6,
                  static_cast<unsigned long long>(s.tx_frames), static_cast<double>(s.tx_bytes) / 1e6,
                  static_cast<unsigned long long>(s.drop_loss), static_cast<unsigned long long>(s.drop_queue),
                  static_cast<unsigned long long>(s.drop_buffer), static_cast<unsigned long long>(s.tx_errors),
                  format_duration(std::llround(s.late.mean_ns())).c_str(),
                  format_duration(s.late.quantile_ns(0.5)).c_str(), format_duration(s.late.quantile_ns(0.99)).c_str(),
                  format_duration(s.late.quantile_ns(0.999)).c_str(), format_duration(s.late.max_ns()).c_str());
    return buf;
}

}  // namespace gridcoll::delayline
