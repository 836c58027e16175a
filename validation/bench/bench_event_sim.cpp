// Throughput and scale of the schedule event simulator (sim/include/gridcoll/event_sim.hpp).
//
//   bench_event_sim                  microbenchmarks (events/s), then the two 1M-rank runs
//   bench_event_sim --skip-micro     only the 1M-rank runs
//   bench_event_sim --skip-large     only the microbenchmarks (Google Benchmark flags apply)
//   bench_event_sim --run=binomial|kary [--ranks=N] [--placement=topology|regular]
//                                    one large run in this process (what the driver execs)
//
// Events/s: simulator events (queue pops: message arrivals, step completions in the future,
// receive retries) per second of CPU time on one core, for a binomial and a segmented 4-ary
// broadcast of 1 MiB in 16 segments over 4,096 ranks (the ranks' packed schedules fit in the
// caches) and 65,536 ranks (they do not: the rate then follows memory latency) on the three-level
// machine below, everything included (building and packing every rank's schedule, then the event
// loop); BM_Builders times the registry's builders alone for the same requests. The large runs: a segmented
// binomial and a segmented 4-ary broadcast of 1 MiB in 64 KiB segments over 1,000,000 ranks on
// a three-level machine (8 sites x 6,250 nodes x 20 cores; WAN, LAN and node parameters
// differ), each in a fresh process (fork + exec of this program) so that its peak resident set
// (VmHWM from /proc/self/status) is its own. Wall time includes building the Topology.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "gridcoll/sim/event_sim.hpp"
#include "gridcoll/algorithms/registry.hpp"

using namespace gridcoll;
using model::PLogPParams;
using model::SizeFunction;

namespace {

// Per-level PLogP parameters: affine in m, g >= os, or.
PLogPParams level(double L, double g0, double bw, double o0, double obw) {
    PLogPParams p;
    p.L = L;
    p.g = SizeFunction::affine(g0, 1.0 / bw);
    p.os = SizeFunction::affine(o0, 1.0 / obw);
    p.or_ = SizeFunction::affine(o0, 1.0 / obw);
    return p;
}

std::vector<PLogPParams> three_levels() {
    return {
        level(5e-3, 20e-6, 125e6, 10e-6, 2e9),     // wan: 5 ms, 1 Gb/s
        level(20e-6, 3e-6, 1.25e9, 2e-6, 5e9),     // lan: 20 us, 10 Gb/s
        level(0.5e-6, 0.3e-6, 10e9, 0.2e-6, 20e9)  // node: shared memory
    };
}

// 8 sites, nodes of 20 cores; the sites hold size / 8 ranks (rounded to whole nodes).
constexpr int kCores = 20;
int site_radix(int size) {
    const int per = (size + 7) / 8;
    return (per + kCores - 1) / kCores * kCores;
}

Topology make_topology(int size) {
    const int site = site_radix(size);
    std::vector<std::vector<int>> c(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) c[static_cast<std::size_t>(r)] = {0, r / site, r / kCores};
    return Topology(std::move(c), {"wan", "lan", "node"});
}

Request bcast(int size, const std::string& alg, std::uint64_t segment = 64 << 10) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = size;
    r.root = 0;
    r.bytes = 1 << 20;
    r.params.segment = segment;
    r.params.fanout = alg == "kary" ? 4 : 2;
    return r;
}

long vm_kib(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, n, field) == 0) return std::stol(line.substr(n + 1));
    return -1;
}

// ---- microbenchmarks ----

// Events per second of CPU time, all included: building every rank's schedule, packing it,
// and the event loop. state.range(0) ranks, a 1 MiB broadcast in state.range(1) segments.
void BM_EventRate(benchmark::State& state, const std::string& alg) {
    const int size = static_cast<int>(state.range(0));
    const sim::LevelMap map = sim::LevelMap::regular(size, {size, site_radix(size), kCores});
    const auto lv = three_levels();
    const Request r = bcast(size, alg, (std::uint64_t{1} << 20) / static_cast<std::uint64_t>(state.range(1)));
    std::uint64_t events = 0, messages = 0, steps = 0;
    for (auto _ : state) {
        const sim::SimResult res = sim::simulate(r, alg, nullptr, &map, std::span<const PLogPParams>(lv));
        events += res.counters.events;
        messages += res.counters.messages;
        steps += res.counters.steps;
        benchmark::DoNotOptimize(res.time);
    }
    state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
    state.counters["msgs/s"] = benchmark::Counter(static_cast<double>(messages), benchmark::Counter::kIsRate);
    state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_EventRate, binomial, std::string("binomial"))
    ->Args({4096, 16})
    ->Args({65536, 16})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EventRate, kary, std::string("kary"))
    ->Args({4096, 16})
    ->Args({65536, 16})
    ->Unit(benchmark::kMillisecond);

// The registry's builders alone, for the same requests: the part of the above that is not the
// simulator's (every rank's schedule is built once).
void BM_Builders(benchmark::State& state, const std::string& alg) {
    const int size = static_cast<int>(state.range(0));
    Request r = bcast(size, alg, (std::uint64_t{1} << 20) / static_cast<std::uint64_t>(state.range(1)));
    const Algorithm& a = find_algorithm(r.coll, alg);
    for (auto _ : state) {
        std::size_t steps = 0;
        for (int k = 0; k < size; ++k) {
            r.rank = k;
            steps += a.build(r).size_steps();
        }
        benchmark::DoNotOptimize(steps);
    }
}
BENCHMARK_CAPTURE(BM_Builders, binomial, std::string("binomial"))
    ->Args({4096, 16})
    ->Args({65536, 16})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Builders, kary, std::string("kary"))
    ->Args({4096, 16})
    ->Args({65536, 16})
    ->Unit(benchmark::kMillisecond);

// ---- one large run ----

int run_large(const std::string& alg, int size, const std::string& placement) {
    using clock = std::chrono::steady_clock;
    const auto cpu = [] {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    };
    const long rss0 = vm_kib("VmRSS:");
    const auto t0 = clock::now();
    const auto lv = three_levels();
    Topology topo;
    sim::LevelMap map;
    long rss_topo = rss0;
    if (placement == "regular") {
        map = sim::LevelMap::regular(size, {size, site_radix(size), kCores});
    } else {
        topo = make_topology(size);
        rss_topo = vm_kib("VmRSS:");
        map = sim::LevelMap(topo);
    }
    const long rss_map = vm_kib("VmRSS:");
    const auto t1 = clock::now();
    const double c1 = cpu();
    const Request r = bcast(size, alg);
    const sim::SimResult res =
        sim::simulate(r, alg, placement == "regular" ? nullptr : &topo, &map, std::span<const PLogPParams>(lv));
    const auto t2 = clock::now();
    const double simcpu = cpu() - c1;
    const double setup = std::chrono::duration<double>(t1 - t0).count();
    const double simt = std::chrono::duration<double>(t2 - t1).count();
    const auto& c = res.counters;
    std::printf("%s bcast, %d ranks (%s placement), 1 MiB in 64 KiB segments%s:\n", alg.c_str(), size,
                placement.c_str(), alg == "kary" ? ", fan-out 4" : "");
    std::printf("  simulated completion time  %.6f s (last rank %d)\n", res.time, res.last_rank);
    std::printf("  wall time                  %.2f s  (placement %.2f s + simulation %.2f s)\n", setup + simt, setup,
                simt);
    std::printf(
        "  peak RSS (VmHWM)           %.1f MiB  (RSS at start %.1f MiB, + Topology %.1f MiB, + LevelMap %.1f MiB)\n",
        static_cast<double>(vm_kib("VmHWM:")) / 1024, static_cast<double>(rss0) / 1024,
        static_cast<double>(rss_topo - rss0) / 1024, static_cast<double>(rss_map - rss_topo) / 1024);
    std::printf("  simulation CPU time        %.2f s\n", simcpu);
    std::printf("  events %llu (%.2f M per CPU second), messages %llu, steps %llu, schedules built %llu\n",
                static_cast<unsigned long long>(c.events), static_cast<double>(c.events) / simcpu / 1e6,
                static_cast<unsigned long long>(c.messages), static_cast<unsigned long long>(c.steps),
                static_cast<unsigned long long>(c.schedules_built));
    std::printf("  peak active ranks %llu, peak queue %llu\n", static_cast<unsigned long long>(c.peak_active_ranks),
                static_cast<unsigned long long>(c.peak_queue));
    std::fflush(stdout);
    return 0;
}

// Runs one large case in a fresh process (its own VmHWM).
int spawn(const std::string& alg, int size, const std::string& placement) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        const std::string a = "--run=" + alg, n = "--ranks=" + std::to_string(size), p = "--placement=" + placement;
        char* args[] = {const_cast<char*>("bench_event_sim"), const_cast<char*>(a.c_str()),
                        const_cast<char*>(n.c_str()), const_cast<char*>(p.c_str()), nullptr};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string run, placement = "topology";
    int ranks = 1000000;
    bool micro = true, large = true;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--run=", 0) == 0)
            run = a.substr(6);
        else if (a.rfind("--ranks=", 0) == 0)
            ranks = std::stoi(a.substr(8));
        else if (a.rfind("--placement=", 0) == 0)
            placement = a.substr(12);
        else if (a == "--skip-micro")
            micro = false;
        else if (a == "--skip-large")
            large = false;
        else
            rest.push_back(argv[i]);
    }
    try {
        if (!run.empty()) return run_large(run, ranks, placement);
        if (micro) {
            int n = static_cast<int>(rest.size());
            benchmark::Initialize(&n, rest.data());
            benchmark::RunSpecifiedBenchmarks();
            benchmark::Shutdown();
        }
        int rc = 0;
        if (large) {
            for (const char* alg : {"binomial", "kary"}) rc |= spawn(alg, ranks, placement);
        }
        return rc;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_event_sim: %s\n", e.what());
        return 1;
    }
}
