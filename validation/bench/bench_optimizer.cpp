// Cost of paper 000's run-time P-LogP broadcast decision (Kielmann, Bal, Gorlatch, IPDPS 2000,
// §3.1: "the optimal broadcast tree and segment size have to be computed at runtime for each
// invocation of MPI_Bcast. Optimization at runtime has to be very fast"): the heuristic of
// plogp_optimizer.hpp for M = 4 MiB on P = 1024 processes, target < 20 us per decision.
//   single layer:  one network, T = (k - 1) gamma + lambda (§3.1);
//   two layers:    64 x 16 and 32 x 32 processes, pipelined T = (k - 1) gamma + lambda_w + lambda_l (§3.2).
// Parameters: single layer, Boba's PLogP behind paper 002 Table 5 (L = 38.017 us, os = or =
// 8.15 us, g(m) = 8.683 us + (m - 1) 0.015 us/B); two layers, DAS-like links (paper 000 §2:
// WAN 10 ms, 1 MB/s; LAN 20 us, 50 MB/s) through plogp_from_link (o = 1 us). The exhaustive
// search is timed once for scale. Counters: evaluations of T per decision, the chosen segment
// size and degrees.
#include <benchmark/benchmark.h>

#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"

using namespace gridcoll::model;

namespace {

constexpr std::uint64_t kM = 4u << 20;

PLogPParams boba() {
    PLogPParams p;
    p.L = 38.017e-6;
    p.os = SizeFunction::constant(8.15e-6);
    p.or_ = SizeFunction::constant(8.15e-6);
    p.g = SizeFunction({{1.0, 8.683e-6}, {1048577.0, 8.683e-6 + 1048576.0 * 0.015e-6}});
    return p;
}

void single_layer(benchmark::State& state, Search search) {
    const PLogPParams p = boba();
    SingleLayerChoice c;
    for (auto _ : state) {
        c = optimize_single_layer(kM, 1024, p, search);
        benchmark::DoNotOptimize(c);
    }
    state.counters["evaluations"] = static_cast<double>(c.evaluations);
    state.counters["segment"] = static_cast<double>(c.segment);
    state.counters["degree"] = c.degree;
    state.counters["T_s"] = c.time;
}

void two_layer(benchmark::State& state, Search search) {
    const int C = static_cast<int>(state.range(0)), S = static_cast<int>(state.range(1));
    const PLogPParams wan = plogp_from_link(10e-3, 1e6), lan = plogp_from_link(20e-6, 50e6);
    TwoLayerChoice c;
    for (auto _ : state) {
        c = optimize_two_layer(kM, C, S, wan, lan, search);
        benchmark::DoNotOptimize(c);
    }
    state.counters["evaluations"] = static_cast<double>(c.evaluations);
    state.counters["segment"] = static_cast<double>(c.segment);
    state.counters["d_w"] = c.wan_degree;
    state.counters["d_l"] = c.lan_degree;
    state.counters["T_s"] = c.time;
}

}  // namespace

BENCHMARK_CAPTURE(single_layer, heuristic_P1024_4MiB, Search::Heuristic)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(two_layer, heuristic_4MiB, Search::Heuristic)
    ->Args({64, 16})
    ->Args({32, 32})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(single_layer, exhaustive_P1024_4MiB, Search::Exhaustive)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
BENCHMARK_CAPTURE(two_layer, exhaustive_4MiB, Search::Exhaustive)
    ->Args({64, 16})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

BENCHMARK_MAIN();
