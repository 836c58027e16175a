// Message costs: the five numbers a message of m bytes at one level costs (send CPU, outgoing
// port, transit to the last byte's arrival, incoming port, receive CPU), computed once per
// (level, size) under PLogP or LogGP and named by an index the message's events carry.
// Internal to the event simulator (sim/src/); see gridcoll/event_sim.hpp for the semantics.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gridcoll/model/params.hpp"
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
};

// The costs of every (level, size) met so far, each computed once and named by an index that
// stays valid (events carry it from the send to the receive).
class Costs {
public:
    explicit Costs(std::span<const model::PLogPParams> p) : plogp_(p), loggp_mode_(false) {}
    explicit Costs(std::span<const model::LogGPParams> p) : loggp_(p), loggp_mode_(true) {}

    bool recv_after_arrival() const { return loggp_mode_; }
    std::size_t levels() const { return loggp_mode_ ? loggp_.size() : plogp_.size(); }

    std::uint32_t id(int level, std::uint64_t bytes) {
        if (last_ != kNone && table_[last_].bytes == bytes && table_[last_].level == level) return last_;
        const std::uint64_t k = bytes * 64 + static_cast<std::uint64_t>(level);
        std::size_t at = slot(k);
        while (hval_[at] != kNone) {
            if (hkey_[at] == k) return last_ = hval_[at];
            at = (at + 1) & (hkey_.size() - 1);
        }
        const auto i = static_cast<std::uint32_t>(table_.size());
        table_.push_back(compute(level, bytes));
        hkey_[at] = k;
        hval_[at] = i;
        if (table_.size() * 2 > hkey_.size()) rehash();
        return last_ = i;
    }
    const Cost& operator[](std::uint32_t i) const { return table_[i]; }

private:
    std::size_t slot(std::uint64_t k) const {
        return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 24) & (hkey_.size() - 1);
    }
    void rehash() {
        hkey_.assign(hkey_.size() * 2, 0);
        hval_.assign(hkey_.size(), kNone);
        for (std::uint32_t i = 0; i < table_.size(); ++i) {
            const std::uint64_t k = table_[i].bytes * 64 + static_cast<std::uint64_t>(table_[i].level);
            std::size_t at = slot(k);
            while (hval_[at] != kNone) at = (at + 1) & (hkey_.size() - 1);
            hkey_[at] = k;
            hval_[at] = i;
        }
    }

    Cost compute(int level, std::uint64_t bytes) const {
        const double m = static_cast<double>(bytes);
        Cost c;
        c.bytes = bytes;
        c.level = level;
        if (loggp_mode_) {
            const model::LogGPParams& p = loggp_[static_cast<std::size_t>(level)];
            const double x = bytes > 0 ? (m - 1) * p.G : 0.0;
            c.send_cpu = p.o;
            c.out_gap = p.g + x;
            c.transit = p.o + x + p.L;
            c.in_gap = p.g + x;
            c.recv_cpu = p.o;
        } else {
            const model::PLogPParams& p = plogp_[static_cast<std::size_t>(level)];
            const double g = p.g(m);
            c.send_cpu = p.os(m);
            c.out_gap = g;
            c.transit = p.L + g;
            c.in_gap = g;
            c.recv_cpu = p.or_(m);
        }
        return c;
    }

    std::span<const model::PLogPParams> plogp_;
    std::span<const model::LogGPParams> loggp_;
    bool loggp_mode_;
    std::vector<Cost> table_;
    std::vector<std::uint64_t> hkey_ = std::vector<std::uint64_t>(64);
    std::vector<std::uint32_t> hval_ = std::vector<std::uint32_t>(64, kNone);
    std::uint32_t last_ = kNone;
};

}  // namespace gridcoll::sim::detail
