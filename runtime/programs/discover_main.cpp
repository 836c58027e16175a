// gridcoll-discover: finds the communicator's multilevel Topology by timing round trips (paper
// 003's ECO, every level; gridcoll/discovery.hpp) and writes it as a rank map, with the
// measured latency and bandwidth of every level. Built against Open MPI (gridcoll-discover)
// and SimGrid SMPI (gridcoll-discover-smpi) from this one source.
//
// Standard output: a report whose lines start with '#', then (without -o) the rank map, so the
// whole output is itself a valid rank map. --expect compares the result with a known rank map
// (e.g. `gridcoll platform ranks`) level by level and exits 1 when they differ.
#include <cstdio>
#include <string>

#include "gridcoll/runtime/discover_comm.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/system/files.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/runtime/mpi_program.hpp"

namespace {

using namespace gridcoll;

struct Options {
    discovery::Options d;
    std::string probe_bytes = "1", bandwidth_bytes = "1M", split_bytes = "256K";
    std::string output, cache, expect;
    bool exact_search = false, allow_flat = false;
};

std::string us(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f us", s * 1e6);
    return b;
}

void report(const discovery::Result& r, int size, double wall_s) {
    const double all = static_cast<double>(size) * (size - 1) / 2;
    std::printf("# discovered %d levels over %d ranks (%s)\n", r.topology.levels(), size, kMpiFlavour);
    std::printf("# pairs timed: %ld of %.0f (%.2f %%): %ld with small messages, %ld with large (bandwidth search); "
                "second looks %ld, link probes %ld, wall time %.2f s\n",
                r.distinct_pairs, all, 100.0 * static_cast<double>(r.distinct_pairs) / all, r.pairs_timed, r.bandwidth_pairs,
                r.second_looks, r.link_probes, wall_s);
    std::printf("# %5s %9s %16s %14s %s\n", "level", "clusters", "RTT (1 byte)", "bandwidth", "pair");
    for (std::size_t l = 0; l < r.levels.size(); ++l) {
        const auto& s = r.levels[l];
        if (s.pair_a < 0) {
            std::printf("# %5zu %9d %16s %14s %s\n", l, s.clusters, "-", "-", "(no pair shares exactly this level)");
            continue;
        }
        std::printf("# %5zu %9d %16s %11.4g B/s %d-%d\n", l, s.clusters, us(s.rtt_s).c_str(), s.bandwidth_Bps, s.pair_a, s.pair_b);
    }
    if (r.ambiguous.empty()) {
        std::printf("# ambiguous pairs: none\n");
    } else {
        std::printf("# ambiguous pairs (near a class boundary after a second look): %zu\n", r.ambiguous.size());
        for (const auto& a : r.ambiguous)
            std::printf("#   %d-%d: %s against a class at %s\n", a.a, a.b, us(a.rtt_s).c_str(), us(a.class_s).c_str());
    }
}

// True when every level's partition is the expected one (the table says where not).
bool compare(const Topology& found, const std::string& expect_file) {
    const Topology expected = Topology::load(expect_file);
    const auto cmp = discovery::compare_partitions(expected, found);
    const bool exact = discovery::same_partitions(cmp);
    std::printf("# against %s:\n# %5s %9s %9s %s\n", expect_file.c_str(), "level", "expected", "found", "same partition");
    for (const auto& c : cmp)
        std::printf("# %5d %9d %9d %s\n", c.level, c.expected_clusters, c.found_clusters, c.equal ? "yes" : "NO");
    return exact;
}

int run(Options& o, int rank, int size) {
    o.d.probe_bytes = parse_bytes(o.probe_bytes);
    o.d.bandwidth_bytes = parse_bytes(o.bandwidth_bytes);
    o.d.split_bytes = parse_bytes(o.split_bytes);
    o.d.assume_homogeneous = !o.exact_search;
    if (size < 2) throw Error("a communicator of one rank has no structure to discover");
    const DiscoveredTopology d = discovered_topology(MPI_COMM_WORLD, o.cache, o.d, o.allow_flat);
    int status = 0;
    if (rank == 0) {
        if (d.from_cache) std::printf("# reused %s (no measurement)\n", o.cache.c_str());
        else report(d.run, size, d.seconds);
        if (!d.from_cache && o.d.assume_homogeneous)
            std::printf("# assumed: a set whose first two representatives see every member at one distance is flat "
                        "(--exact-search times all its pairs)\n");
        const char* exact = "unchecked";
        if (!o.expect.empty()) {
            const bool same = compare(*d.topology, o.expect);
            exact = same ? "yes" : "no";
            status = same ? 0 : 1;
        }
        // One line for tables (gridcoll discover --check).
        std::printf("# summary ranks=%d levels=%d pairs=%ld bw_pairs=%ld distinct_pairs=%ld all_pairs=%.0f exact=%s wall_s=%.3f "
                    "cached=%s\n",
                    size, d.topology->levels(), d.run.pairs_timed, d.run.bandwidth_pairs, d.run.distinct_pairs,
                    static_cast<double>(size) * (size - 1) / 2, exact, d.seconds, d.from_cache ? "yes" : "no");
        const std::string text = d.topology->to_text();
        if (o.output.empty() || o.output == "-") {
            std::fputs(text.c_str(), stdout);
        } else {
            sys::write_output(o.output, text);
            std::printf("# wrote %s\n", o.output.c_str());
        }
        std::fflush(stdout);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    return run_mpi_program(
        argc, argv, "gridcoll-discover", "find the multilevel Topology by timing round trips (ECO, every level)",
        [&](CLI::App& app) {
            app.add_option("-o,--output", o.output, "rank map to write (default: standard output)");
            app.add_option("--cache", o.cache, "reuse this rank map when it was discovered for this job, else discover and write it");
            app.add_option("--expect", o.expect, "compare with this rank map level by level (exit 1 if they differ)");
            app.add_option("--threshold", o.d.threshold, "same distance class when within this fraction (paper 003: 0.20)")
                ->capture_default_str();
            app.add_option("--margin", o.d.margin, "second look at distances this close to a class boundary (relative)")
                ->capture_default_str();
            app.add_option("-r,--reps", o.d.reps, "exchanges per timed pair (the minimum is kept)")->capture_default_str();
            app.add_option("--second-look-reps", o.d.second_look_reps, "exchanges for a pair near a boundary")->capture_default_str();
            app.add_option("--probe-bytes", o.probe_bytes, "message size of the distance probe")->capture_default_str();
            app.add_option("--bandwidth-bytes", o.bandwidth_bytes, "message size of the per-level bandwidth probe (0: none)")
                ->capture_default_str();
            app.add_option("--split-bytes", o.split_bytes,
                           "message size of the bandwidth search of groups that look flat by latency (0: none)")
                ->capture_default_str();
            app.add_flag("--exact-search", o.exact_search, "do not assume homogeneous sets: time every pair where needed");
            app.add_flag("--allow-flat", o.allow_flat, "a network with no structure is a one-level result, not an error");
        },
        [&](int rank, int size) { return run(o, rank, size); });
}
