// gridcoll-plogp: measures PLogP parameters (paper 000 §2.1, paper 002 §3 / §6.1) between pairs
// of ranks at every level of a topology, the way Kielmann et al.'s logp_mpi does, and writes a
// model parameter file (params_io.hpp) with one level per topology level: the measured PLogP
// and the LogGP and Hockney parameters derived from it (derive.hpp). Built against Open MPI
// (gridcoll-plogp) and SimGrid SMPI (gridcoll-plogp-smpi) from this one source.
//
// Which ranks represent a level: with --rank-map (Topology::from_text, as written by
// `gridcoll platform ranks`), level l is measured between the first pair (a, b), a < b, whose
// deepest shared level is exactly l (typically rank 0 and the lowest such rank); a level no
// pair shares (e.g. the node level with one core per node) is written without parameters.
// Without a rank map there is one level, measured between ranks 0 and 1. Ranks not in the pair
// wait in a broadcast of the result. The measurement itself is plogp_measure.hpp.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/params_io.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/runtime/mpi_program.hpp"
#include "gridcoll/runtime/comm_context.hpp"
#include "gridcoll/runtime/plogp_measure.hpp"

namespace {

using namespace gridcoll;

struct Options {
    std::string rank_map;
    std::string output;
    std::string raw;
    std::string level_name;
    std::string bytes;
    std::string max_bytes = "4M";
    std::string gap_bytes = "16M";
    std::string latency_bytes = "1K";
    std::string stat = "median";
    PLogPMeasureOptions m;
};

// The first pair (a, b), a < b < size, whose deepest shared level is exactly `level`. Ranks are
// grouped by their cluster at `level`; within a group, a pair exists iff one exists with the
// group's first member (two members both sharing the first one's level-(l+1) cluster share it
// with each other), so one pass per level suffices.
std::optional<std::pair<int, int>> pair_for_level(const Topology& t, int size, int level) {
    std::map<int, std::vector<int>> groups;  // cluster id -> members, ascending
    for (int r = 0; r < size; ++r)
        if (t.depth(r) > level) groups[t.cluster(r, level)].push_back(r);
    std::optional<std::pair<int, int>> best;
    for (const auto& [id, members] : groups) {
        const int f = members.front();
        if (best && best->first < f) continue;
        for (std::size_t i = 1; i < members.size(); ++i)
            if (t.common_level(f, members[i]) == level) {
                best = std::make_pair(f, members[i]);
                break;
            }
    }
    return best;
}

std::string fmt_time(double s) {
    char buf[48];
    const double a = s < 0 ? -s : s;
    if (a == 0) std::snprintf(buf, sizeof buf, "0");
    else if (a < 1e-6) std::snprintf(buf, sizeof buf, "%.2f ns", s * 1e9);
    else if (a < 1e-3) std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
    else if (a < 1) std::snprintf(buf, sizeof buf, "%.4f ms", s * 1e3);
    else std::snprintf(buf, sizeof buf, "%.5f s", s);
    return buf;
}

// The level's table, as TOML comments (so that stdout stays a valid parameter file when the
// parameters follow on stdout).
void print_level(const std::string& name, int level, const PLogPMeasurement& m) {
    std::printf("# level %d \"%s\": ranks %d -> %d, L = %s\n", level, name.c_str(), m.sender, m.receiver, fmt_time(m.L).c_str());
    std::printf("# %10s %14s %14s %14s %14s %6s %s\n", "bytes", "RTT", "os", "or", "g", "n", "send");
    for (const auto& s : m.samples)
        std::printf("# %10llu %14s %14s %14s %14s %6d %s\n", static_cast<unsigned long long>(s.bytes), fmt_time(s.rtt).c_str(),
                    fmt_time(s.os).c_str(), fmt_time(s.or_).c_str(), fmt_time(s.g).c_str(), s.gap_count,
                    s.local_completion ? "local" : "needs-receiver");
    for (const auto& w : m.warnings()) std::printf("# warning: level %s: %s\n", name.c_str(), w.c_str());
    std::fflush(stdout);
}

int run(const Options& o, int rank, int size) {
    if (size < 2) throw Error("needs at least 2 ranks (got " + std::to_string(size) + ")");
    Topology topo;
    if (o.rank_map.empty()) {
        topo = Topology::flat(size);
        if (!o.level_name.empty())
            topo = Topology(std::vector<std::vector<int>>(static_cast<std::size_t>(size), std::vector<int>{0}), {o.level_name});
    } else {
        if (!o.level_name.empty()) throw Error("--level-name is only for runs without --rank-map");
        topo = *comm_topology(MPI_COMM_WORLD, o.rank_map);
    }

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    model::ParamSet ps;
    ps.origin = std::string("measured: gridcoll-plogp (") + kMpiFlavour + ", logp_mpi method, " +
                (o.m.stat == Statistic::Median ? "median" : "minimum") + " of " + std::to_string(o.m.reps) + " repetitions)";
    std::FILE* raw = nullptr;
    if (rank == 0 && !o.raw.empty()) {
        raw = std::fopen(o.raw.c_str(), "w");
        if (!raw) std::fprintf(stderr, "gridcoll-plogp: warning: cannot write \"%s\"\n", o.raw.c_str());
        else std::fprintf(raw, "backend,level,name,sender,receiver,bytes,rtt_s,os_s,or_s,g_s,gap_count,send,L_s\n");
    }
    const std::size_t packed_len = 3 + 7 * measured_sizes(o.m.sizes).size();
    for (int l = 0; l < topo.levels(); ++l) {
        model::LevelParams lp;
        lp.level = topo.level_name(l);
        const auto pair = pair_for_level(topo, size, l);
        if (!pair) {
            if (rank == 0) {
                std::printf("# level %d \"%s\": no two ranks share exactly this level; not measured\n", l, lp.level.c_str());
                std::fflush(stdout);
            }
            ps.levels.push_back(lp);
            continue;
        }
        const auto [a, b] = *pair;
        std::vector<double> packed(packed_len);
        if (rank == a || rank == b) {
            if (rank == 0 || rank == a)
                std::fprintf(stderr, "gridcoll-plogp: measuring level %d \"%s\" between ranks %d and %d\n", l,
                             lp.level.c_str(), a, b);
            packed = measure_plogp(comm, a, b, o.m).pack();
        }
        MPI_Bcast(packed.data(), static_cast<int>(packed.size()), MPI_DOUBLE, a, comm);
        MPI_Barrier(comm);
        const PLogPMeasurement m = PLogPMeasurement::unpack(packed);
        lp.plogp = m.params();
        model::complete_from_plogp(lp);
        ps.levels.push_back(lp);
        if (rank == 0) {
            print_level(lp.level, l, m);
            if (raw)
                for (const auto& s : m.samples)
                    std::fprintf(raw, "%s,%d,%s,%d,%d,%llu,%.9g,%.9g,%.9g,%.9g,%d,%s,%.9g\n", kMpiFlavour, l, lp.level.c_str(), a, b,
                                 static_cast<unsigned long long>(s.bytes), s.rtt, s.os, s.or_, s.g, s.gap_count,
                                 s.local_completion ? "local" : "needs-receiver", m.L);
        }
    }
    if (raw) std::fclose(raw);
    MPI_Comm_free(&comm);
    if (rank == 0) {
        if (o.output.empty() || o.output == "-") {
            std::fputs(model::to_toml(ps).c_str(), stdout);
        } else {
            model::save_params(ps, o.output);
            std::printf("# wrote %s\n", o.output.c_str());
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    return run_mpi_program(
        argc, argv, "gridcoll-plogp", "measure PLogP parameters per topology level (logp_mpi method) and write a parameter file",
        [&](CLI::App& app) {
            app.add_option("--rank-map", o.rank_map, "rank map (gridcoll platform ranks); without it: one level, ranks 0 and 1");
            app.add_option("-o,--output", o.output, "parameter file to write (TOML); default: standard output");
            app.add_option("--raw", o.raw, "also write every measured value as CSV to this file");
            app.add_option("--level-name", o.level_name, "name of the single level of a run without --rank-map (default: all)");
            app.add_option("-b,--bytes", o.bytes, "message sizes, e.g. 1,8,1K,64K,4M (default: powers of 2 from 1 to --max-bytes)");
            app.add_option("--max-bytes", o.max_bytes, "largest power-of-2 size when --bytes is not given")->capture_default_str();
            app.add_option("-r,--reps", o.m.reps, "timed repetitions of each measurement")->capture_default_str();
            app.add_option("--warmup", o.m.warmup, "untimed repetitions first")->capture_default_str();
            app.add_option("--stat", o.stat, "statistic over the repetitions: median or min")->capture_default_str();
            app.add_option("--gap-count", o.m.gap_max_count, "messages per saturation burst (n) for small messages")->capture_default_str();
            app.add_option("--gap-min", o.m.gap_min_count, "n never below this")->capture_default_str();
            app.add_option("--gap-bytes", o.gap_bytes, "n * m kept under this for large messages")->capture_default_str();
            app.add_option("--latency-bytes", o.latency_bytes, "L = mean of RTT(m)/2 - g(m) over sizes up to this")->capture_default_str();
            app.add_option("--delay-factor", o.m.delay_factor, "receiver delay before MPI_Recv (or): this times RTT(m)")->capture_default_str();
            app.add_option("--delay-min", o.m.delay_min_s, "receiver delay at least this many seconds")->capture_default_str();
        },
        [&](int rank, int size) {
            if (o.bytes.empty()) {
                const std::uint64_t max = parse_bytes(o.max_bytes);
                for (std::uint64_t m = 1; m <= max; m *= 2) o.m.sizes.push_back(m);
            } else {
                o.m.sizes = parse_byte_list(o.bytes);
            }
            o.m.gap_max_bytes = parse_bytes(o.gap_bytes);
            o.m.latency_max_bytes = parse_bytes(o.latency_bytes);
            if (o.stat == "median") o.m.stat = Statistic::Median;
            else if (o.stat == "min") o.m.stat = Statistic::Min;
            else throw Error("--stat must be median or min (got '" + o.stat + "')");
            validate(o.m);
            return run(o, rank, size);
        });
}
