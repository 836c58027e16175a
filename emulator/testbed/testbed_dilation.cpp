// Time dilation of a testbed: the platform scaled K times slower, the hosts' CPU quota, auto K.
#include "gridcoll/emulator/testbed_dilation.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::emulate {

namespace {

void slow_down(platform::LinkSpec& l, double k) {
    l.latency_s *= k;
    l.jitter_s *= k;
    l.bandwidth_Bps /= k;
}

void slow_down(platform::Zone& z, double k) {
    slow_down(z.link, k);
    if (z.backbone) slow_down(*z.backbone, k);
    for (auto& e : z.links) slow_down(e.link, k);
    if (z.gateway) {
        z.gateway->overhead_s *= k;
        z.gateway->bandwidth_Bps /= k;
    }
    slow_down(z.core_link, k);
    z.speed_flops /= k;
    for (auto& c : z.children) slow_down(c, k);
}

}  // namespace

int machine_cores() {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

double resolve_dilation(const std::string& setting, const platform::Platform& p, int cores, double round_trip_s) {
    if (setting == "auto") {
        int total = 0;
        for (const auto& h : platform::hosts(p)) total += std::max(1, h.cores);
        const double per_core = std::ceil(static_cast<double>(total) / std::max(1, cores));
        const double by_round_trip = round_trip_s > 0 ? std::floor(kDilatedRoundTripBudget_s / round_trip_s) : per_core;
        return std::max(1.0, std::min(per_core, by_round_trip));
    }
    double k = 0;
    std::size_t used = 0;
    try {
        k = std::stod(setting, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != setting.size() || !std::isfinite(k) || k < 1 || k > 1000)
        throw Error("--dilation '" + setting + "': expected auto or a factor from 1 to 1000");
    return k;
}

platform::Platform dilated(const platform::Platform& p, double k) {
    platform::Platform d = p;
    if (k != 1) slow_down(d.root, k);
    return d;
}

CpuQuota cpu_quota(int cores, double k) {
    CpuQuota q;
    const double share = std::max(1, cores) / k;           // CPUs
    q.period_us = std::max(100000L, static_cast<long>(std::ceil(1000 / share)));
    q.quota_us = std::max(1000L, static_cast<long>(std::lround(share * static_cast<double>(q.period_us))));
    return q;
}

std::string format_dilation(double k) {
    if (k == 1) return "none";
    char buf[32];
    std::snprintf(buf, sizeof buf, "x%g", k);
    return buf;
}

bool cpu_capped(const std::string& setting, double k, const platform::Platform& p, int machine_cores) {
    if (setting != "auto" && setting != "on" && setting != "off")
        throw Error("--cpu-cap '" + setting + "': expected auto, on or off");
    if (k <= 1 || setting == "off") return false;
    if (setting == "on") return true;
    double total = 0;
    for (const auto& h : platform::hosts(p)) total += std::max(1, h.cores);
    return k > total / std::max(1, machine_cores);
}

}  // namespace gridcoll::emulate
