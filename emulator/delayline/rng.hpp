// A small, fast, portable random generator (xoshiro256**, seeded through splitmix64).
// Written out here rather than taken from <random> so that a seed gives the same loss and
// jitter sequence with every compiler and standard library (std distributions are not portable).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

namespace gridcoll::delayline {

class Rng {
public:
    explicit Rng(std::uint64_t seed = 1) {
        std::uint64_t x = seed;
        for (auto& w : s_) w = splitmix64(x);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in [0, 1).
    double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    // Uniform integer in [lo, hi] (hi - lo < 2^63). Lemire's multiply-shift: bias below 2^-64 * range.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {
        const auto range = static_cast<unsigned __int128>(static_cast<std::uint64_t>(hi - lo) + 1);
        const auto r = static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * range) >> 64);
        return lo + static_cast<std::int64_t>(r);
    }

    // Standard normal (Box-Muller, both values used).
    double normal() {
        if (have_spare_) {
            have_spare_ = false;
            return spare_;
        }
        double u1 = 0;
        do u1 = uniform01();
        while (u1 <= 0.0);
        const double u2 = uniform01();
        const double r = std::sqrt(-2.0 * std::log(u1));
        spare_ = r * std::sin(2.0 * std::numbers::pi * u2);
        have_spare_ = true;
        return r * std::cos(2.0 * std::numbers::pi * u2);
    }

    // Threshold for a Bernoulli draw with probability p: next() < threshold (exact for p = 0 and p = 1).
    static std::uint64_t bernoulli_threshold(double p) {
        if (p <= 0) return 0;
        if (p >= 1) return std::numeric_limits<std::uint64_t>::max();
        return static_cast<std::uint64_t>(std::ldexp(p, 64));
    }

    static std::uint64_t splitmix64(std::uint64_t& x) {
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    std::uint64_t s_[4];
    double spare_ = 0;
    bool have_spare_ = false;
};

}  // namespace gridcoll::delayline
