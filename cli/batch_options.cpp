#include "batch_options.hpp"

#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"

namespace gridcoll::cli {

void BatchOptions::add_options(CLI::App& app, int default_reps) {
    reps = default_reps;
    app.add_option("-c,--collective", collective, "barrier, bcast, reduce, allreduce, scan, scatter, gather, allgather, alltoall")
        ->capture_default_str();
    app.add_option("-a,--algorithm,--method", algorithm,
                   "methods, comma-separated (kary:k=4:seg=64K); 'native' and 'auto' on MPI backends; 'all'")
        ->capture_default_str();
    app.add_option("-b,--bytes", bytes, "message sizes, e.g. 8,64K,4M")->capture_default_str();
    app.add_option("-s,--segment", segment, "segment size of methods without seg= (0 = none)")->capture_default_str();
    app.add_option("-k,--fanout", fanout, "fan-out / chains of methods without k=")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("-r,--reps", reps, "timed repetitions")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--warmup", warmup, "untimed repetitions")->capture_default_str()->check(CLI::NonNegativeNumber);
    app.add_option("--root", root, "fixed root (default: every rank in turn)")->check(CLI::NonNegativeNumber);
    app.add_option("--type", type, "reduction element type: int32, int64, float, double")->capture_default_str();
    app.add_option("--op", op, "reduction operation: sum, prod, min, max")->capture_default_str();
    app.add_flag("--no-verify", no_verify, "do not check results");
}

Batch BatchOptions::make(int ranks, std::shared_ptr<const Topology> topology, bool mpi) const {
    Batch b;
    b.shape.coll = parse_collective(collective);
    b.shape.ranks = ranks;
    b.shape.root = root;
    b.shape.type = parse_elem_type(type);
    b.shape.op = parse_reduce_op(op);
    b.shape.topology = std::move(topology);
    MethodParams defaults;
    defaults.segment = parse_bytes(segment);
    defaults.fanout = fanout;
    b.methods = parse_method_list(b.shape.coll, algorithm, defaults, MethodListOptions{mpi, mpi});
    if (algorithm == "all") {
        std::erase_if(b.methods, [&](const Method& m) {  // hierarchical methods need a Topology
            return !b.shape.topology && find_algorithm(b.shape.coll, m.algorithm).needs_topology;
        });
        if (mpi) b.methods.emplace_back(std::string(kNativeMethod));
    }
    b.sizes = parse_byte_list(bytes);
    b.reps = reps;
    b.warmup = warmup;
    b.verify = !no_verify;
    return b;
}

}  // namespace gridcoll::cli
