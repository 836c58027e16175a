#include "batch_options.hpp"

namespace gridcoll::cli {

void add_batch_options(CLI::App& app, BatchOptions& o, int default_reps) {
    o.reps = default_reps;
    app.add_option("-c,--collective", o.collective, "barrier, bcast, reduce, allreduce, scan, scatter, gather, allgather, alltoall")
        ->capture_default_str();
    app.add_option("-a,--algorithm,--method", o.algorithm,
                   "methods, comma-separated (kary:k=4:seg=64K, multilevel[...]); 'native' on MPI backends; 'auto' = chosen per "
                   "point by --rules (else the fixed default); 'all'")
        ->capture_default_str();
    app.add_option("-b,--bytes", o.bytes, "message sizes, e.g. 8,64K,4M")->capture_default_str();
    app.add_option("-s,--segment", o.segment, "segment size of methods without seg= (0 = none)")->capture_default_str();
    app.add_option("-k,--fanout", o.fanout, "fan-out / chains of methods without k=")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("-r,--reps", o.reps, "timed repetitions")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--warmup", o.warmup, "untimed repetitions")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--root", o.root, "fixed root (default: every rank in turn)")->check(CLI::NonNegativeNumber);
    app.add_option("--type", o.type, "reduction element type: int32, int64, float, double")->capture_default_str();
    app.add_option("--op", o.op, "reduction operation: sum, prod, min, max")->capture_default_str();
    app.add_flag("!--no-verify", o.verify, "do not check results");
    app.add_option("--rules", o.rules, "decision rules file for the method 'auto' (algorithms/model/README.md)");
}

}  // namespace gridcoll::cli
