// Message costs: the five numbers a message of m bytes at one level costs (send CPU, outgoing
// port, transit to the last byte's arrival, incoming port, receive CPU), computed once per
// (parameter class, size) under PLogP or LogGP and named by an index the message's events carry.
// A parameter class is a level's own parameters (class = level), or those of one pair of its
// clusters or of one of its clusters whose link differs (class >= levels: PairParams and
// ClusterParams in gridcoll/event_sim.hpp).
// Internal to the event simulator (sim/src/); see gridcoll/event_sim.hpp for the semantics.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gridcoll/algorithms/model/params.hpp"
#include "sim_common.hpp"

namespace gridcoll::sim::detail {

struct Cost {
    double send_cpu = 0;  // sender CPU busy
    double out_gap = 0;   // sender's outgoing port busy
    double transit = 0;   // send start -> last byte at the receiver
    double in_gap = 0;    // receiver's incoming port busy
    double recv_cpu = 0;  // receiver CPU busy
    std::uint64_t bytes = 0;
    int level = 0;
    std::uint32_t klass = 0;  // the parameters it was computed with
};

// The costs of every (class, size) met so far, each computed once and named by an index that
// stays valid (events carry it from the send to the receive).
class Costs {
public:
    Costs(std::span<const model::PLogPParams> levels, std::span<const model::PLogPParams> pairs)
        : plogp_(joined(levels, pairs)), levels_(levels.size()), loggp_mode_(false) {}
    Costs(std::span<const model::LogGPParams> levels, std::span<const model::LogGPParams> pairs)
        : loggp_(joined(levels, pairs)), levels_(levels.size()), loggp_mode_(true) {}

    bool recv_after_arrival() const { return loggp_mode_; }
    std::size_t levels() const { return levels_; }

    // A message of `bytes` at `level` with the level's own parameters.
    std::uint32_t id(int level, std::uint64_t bytes) { return id(level, static_cast<std::uint32_t>(level), bytes); }
    // ... with those of class `klass` (level or levels() + pair index).
    std::uint32_t id(int level, std::uint32_t klass, std::uint64_t bytes) {
        if (last_ != kNone && table_[last_].bytes == bytes && table_[last_].klass == klass) return last_;
        std::size_t at = slot(bytes, klass);
        while (hval_[at] != kNone) {
            const Cost& c = table_[hval_[at]];
            if (c.bytes == bytes && c.klass == klass) return last_ = hval_[at];
            at = (at + 1) & (hval_.size() - 1);
        }
        const auto i = static_cast<std::uint32_t>(table_.size());
        table_.push_back(compute(level, klass, bytes));
        hval_[at] = i;
        if (table_.size() * 2 > hval_.size()) rehash();
        return last_ = i;
    }
    const Cost& operator[](std::uint32_t i) const { return table_[i]; }

private:
    template <class P>
    static std::vector<P> joined(std::span<const P> a, std::span<const P> b) {
        std::vector<P> v(a.begin(), a.end());
        v.insert(v.end(), b.begin(), b.end());
        return v;
    }
    std::size_t slot(std::uint64_t bytes, std::uint32_t klass) const {
        const std::uint64_t k = bytes * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(klass) * 0xC2B2AE3D27D4EB4Full);
        return static_cast<std::size_t>(k >> 24) & (hval_.size() - 1);
    }
    void rehash() {
        hval_.assign(hval_.size() * 2, kNone);
        for (std::uint32_t i = 0; i < table_.size(); ++i) {
            std::size_t at = slot(table_[i].bytes, table_[i].klass);
            while (hval_[at] != kNone) at = (at + 1) & (hval_.size() - 1);
            hval_[at] = i;
        }
    }

    Cost compute(int level, std::uint32_t klass, std::uint64_t bytes) const {
        const double m = static_cast<double>(bytes);
        Cost c;
        c.bytes = bytes;
        c.level = level;
        c.klass = klass;
        if (loggp_mode_) {
            const model::LogGPParams& p = loggp_[klass];
            const double x = bytes > 0 ? (m - 1) * p.G : 0.0;
            c.send_cpu = p.o;
            c.out_gap = p.g + x;
            c.transit = p.o + x + p.L;
            c.in_gap = p.g + x;
            c.recv_cpu = p.o;
        } else {
            const model::PLogPParams& p = plogp_[klass];
            const double g = p.g(m);
            c.send_cpu = p.os(m);
            c.out_gap = g;
            c.transit = p.L + g;
            c.in_gap = g;
            c.recv_cpu = p.or_(m);
        }
        return c;
    }

    std::vector<model::PLogPParams> plogp_;
    std::vector<model::LogGPParams> loggp_;
    std::size_t levels_;
    bool loggp_mode_;
    std::vector<Cost> table_;
    std::vector<std::uint32_t> hval_ = std::vector<std::uint32_t>(64, kNone);
    std::uint32_t last_ = kNone;
};

}  // namespace gridcoll::sim::detail
