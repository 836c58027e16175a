// The options that say what to run — collective, methods, sizes, root, reduction, repetitions —
// declared once for every subcommand that runs a backend (simulate, emulate bench), and the
// Batch they make.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "gridcoll/backend.hpp"

namespace gridcoll::cli {

struct BatchOptions {
    std::string collective = "bcast";
    std::string algorithm = "binomial";
    std::string bytes = "8,1K,64K,1M";
    std::string segment = "0";
    int fanout = 2;
    int reps = 5;
    int warmup = 1;
    int root = kEveryRoot;
    std::string type = "int32", op = "sum";
    bool no_verify = false;

    void add_options(CLI::App& app, int default_reps);
    // `mpi`: the backend runs MPI code ('native' and 'auto' allowed; 'all' includes native).
    // 'all' leaves out hierarchical methods when there is no Topology.
    Batch make(int ranks, std::shared_ptr<const Topology> topology, bool mpi) const;
};

}  // namespace gridcoll::cli
