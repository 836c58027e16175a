#include "gridcoll/runtime/bench_options.hpp"

#include "gridcoll/runtime/count_checks.hpp"

#include <cstdio>

namespace gridcoll::launch {

void add_batch_options(CLI::App& app, BatchOptions& o, int default_reps) {
    o.reps = default_reps;
    app.add_option("-c,--collective", o.collective,
                   "barrier, bcast, reduce, allreduce, scan, scatter, gather, allgather, alltoall, reduce_scatter, "
                   "reduce_scatter_block, exscan, allgatherv, gatherv, scatterv, alltoallv")
        ->capture_default_str();
    app.add_option("--counts", o.counts,
                   "per-rank blocks of the irregular collectives (v-variants, reduce_scatter) around --bytes: even, "
                   "ramp (0 to 2x over the ranks), zeros (2x at even ranks, 0 at odd ones)")
        ->capture_default_str()
        ->check(CLI::IsMember({"even", "ramp", "zeros"}));
    app.add_option("-a,--algorithm,--method", o.algorithm,
                   "methods, comma-separated (kary:k=4:seg=64K, multilevel[...]); 'native' on MPI backends; 'auto' = chosen per "
                   "point by --rules (else the builtin decision); 'all' (default: binomial where the collective has "
                   "it, else auto)");
    app.add_option("-b,--bytes", o.bytes, "message sizes, e.g. 8,1K,64KiB,4M (the per-rank block for scatter, gather, allgather, alltoall, reduce_scatter_block and the v-variants)")->capture_default_str();
    app.add_option("-s,--segment", o.segment, "segment size of methods without seg= (0 = none)")->capture_default_str();
    app.add_option("-k,--fanout", o.fanout, "fan-out / chains of methods without k=")->capture_default_str()->check(kPositive);
    app.add_option("-r,--reps", o.reps, "timed repetitions")->capture_default_str()->check(kPositive);
    app.add_option("--warmup", o.warmup, "untimed repetitions")->capture_default_str()->check(kNonNegative);
    app.add_option("--root", o.root, "fixed root (default: every rank in turn)")->check(kNonNegative);
    app.add_option("--type", o.type, "reduction element type: int32, int64, float, double")->capture_default_str();
    app.add_option("--op", o.op, "reduction operation: sum, prod, min, max")->capture_default_str();
    app.add_flag("!--no-verify", o.verify, "do not check results");
    app.add_option("--timing", o.timing,
                   "root: the root's clock around each call, between a release and every rank's report (papers 001, "
                   "002); per-rank: each rank's own clock around back-to-back calls, as the OSU benchmarks time (MPI "
                   "backends; one root); sync: simulated time, every rank starting at the same instant, until the "
                   "last is done (SMPI, whose ranks share one clock; the event simulator's own timing)")
        ->capture_default_str()
        ->check(CLI::IsMember({"root", "per-rank", "sync"}));
    app.add_option("--rules", o.rules, "decision rules file for the method 'auto' (algorithms/model/README.md)");
}

void note_inapplicable(const CLI::App& app, const BatchOptions& o) {
    Collective c{};
    try {
        c = parse_collective(o.collective);
    } catch (const Error&) {
        return;  // the batch itself reports the name
    }
    const std::string name(to_string(c));
    const auto note = [&](const char* option, bool applies, const char* which) {
        if (app.count(option) > 0 && !applies)
            std::fprintf(stderr, "note: %s applies to %s only; %s has no use for it (ignored)\n", option, which,
                         name.c_str());
    };
    note("--type", is_reduction(c), "the reductions");
    note("--op", is_reduction(c), "the reductions");
    note("--counts", is_irregular(c), "the irregular collectives (v-variants, reduce_scatter)");
    note("--root", is_rooted(c), "the rooted collectives");
    note("--bytes", c != Collective::Barrier, "collectives that move data");
}

std::vector<std::string> bench_arguments(const Batch& b, const std::string& rank_map) {
    std::string methods, sizes;
    for (const Method& m : b.methods) methods += (methods.empty() ? "" : ",") + to_string(m);
    for (std::uint64_t s : b.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    std::vector<std::string> a = {"--collective", std::string(to_string(b.shape.coll)), "--algorithm", methods, "--bytes", sizes,
                                  "--reps", std::to_string(b.reps), "--warmup", std::to_string(b.warmup)};
    if (is_reduction(b.shape.coll))
        a.insert(a.end(), {"--type", std::string(to_string(b.shape.type)), "--op", std::string(to_string(b.shape.op))});
    if (is_irregular(b.shape.coll)) a.insert(a.end(), {"--counts", std::string(to_string(b.shape.counts))});
    if (b.shape.root != kEveryRoot) a.insert(a.end(), {"--root", std::to_string(b.shape.root)});
    if (!b.verify) a.push_back("--no-verify");
    if (b.timing != Timing::Root) a.insert(a.end(), {"--timing", std::string(to_string(b.timing))});
    if (!rank_map.empty()) a.insert(a.end(), {"--rank-map", rank_map});
    if (!b.rules.empty()) a.insert(a.end(), {"--rules", b.rules});
    return a;
}

}  // namespace gridcoll::launch
