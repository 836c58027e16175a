// Time dilation (after Gupta et al., "To Infinity and Beyond: Time-Warped Network Emulation",
// NSDI 2006, and DieCast, NSDI 2008): a testbed dilated by K runs every link K times slower (delay
// and jitter x K, rate / K), gives every containerised host K times less of a CPU, and exports
// GRIDCOLL_DILATION=K to the ranks, whose clocks (gridcoll's benchmark, discovery and PLogP
// measurement; MPI_Wtime under the PMPI library) divide elapsed time by K. A machine with K times
// fewer cores than the platform then measures the collective of the undilated platform, at K
// times the wall-clock cost.
#pragma once

#include <string>

#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::emulate {

// The longest dilated round trip between two hosts that `auto` allows. TCP's initial
// retransmission timeout is a fixed 1 s (RFC 6298), the timer of a connection's handshake and of
// its first data before a round trip is measured, and no setting dilates it. On das-4x32 (20 ms)
// the multilevel allreduce of 1 MiB measured 1.06x SMPI's at x32 (0.64 s) and 1.7-3.1x at x64
// (1.28 s) (emulator/README.md, "Time dilation").
inline constexpr double kDilatedRoundTripBudget_s = 2.0 / 3.0;

// The dilation of a setting: "1" (none), a number >= 1, or "auto": the platform's cores per core
// of this machine (`machine_cores`), rounded up, but no more than keeps `round_trip_s` (the
// longest undilated round trip between two hosts; 0: unknown) within kDilatedRoundTripBudget_s;
// at least 1. Error naming the value otherwise.
double resolve_dilation(const std::string& setting, const platform::Platform& p, int machine_cores,
                        double round_trip_s = 0);

// This machine's online cores (at least 1).
int machine_cores();

// `p` with every link, backbone, explicit link and gateway K times slower (latency, jitter and
// overhead x K; bandwidth / K) and every core K times slower. Loss is unchanged.
platform::Platform dilated(const platform::Platform& p, double k);

// The CPU a containerised host gets in a testbed dilated by K: `cores` / K of a CPU, as a CFS
// quota per period (both in microseconds; the period long enough for a quota of at least 1 ms).
struct CpuQuota {
    long quota_us = 0, period_us = 0;
};
CpuQuota cpu_quota(int cores, double k);

// Whether dilated hosts get a hard CPU cap (setting cpu_cap: auto, on, off). The hosts' CPU
// weights already give each its fair share of this machine — cores / K each when K is the
// platform's cores per core here — and Open MPI's ranks poll (yield) while they wait, so every
// host always wants CPU: a cap then only adds the quota's period as a delay whenever a polling
// rank has spent its quota (at x64: 1 ms in 64 ms, a dilated millisecond per hop; das-4x32's
// wanstream of 1 MiB measured 1.60x SMPI's time capped, 1.34x without). auto caps only where K
// exceeds the platform's cores per core here (weights alone would give hosts more than cores/K).
bool cpu_capped(const std::string& setting, double k, const platform::Platform& p, int machine_cores);

// "x4" or "x2.5" for reports; "none" for 1.
std::string format_dilation(double k);

}  // namespace gridcoll::emulate
