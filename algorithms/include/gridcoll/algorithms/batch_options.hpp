// What to run, as a front end's options give it — collective, methods, sizes, root, reduction,
// repetitions, all as text — and the Batch it makes (backend.hpp). One place for the command
// lines of gridcoll (simulate, emulate bench) and gridcoll-bench; each declares the options.
#pragma once

#include <memory>
#include <string>

#include "gridcoll/algorithms/backend.hpp"

namespace gridcoll {

struct BatchOptions {
    std::string collective = "bcast";
    std::string algorithm;  // method list (method.hpp), "all"; empty: binomial where the collective has it, else auto
    std::string bytes = "8,1K,64K,1M";
    std::string segment = "0";           // default seg= of methods that segment
    int fanout = 2;                      // default k= of methods with a fan-out
    int reps = 5;
    int warmup = 1;
    int root = kEveryRoot;
    std::string type = "int32", op = "sum";
    bool verify = true;
    std::string counts = "even";  // irregular collectives: even, ramp, zeros (collective.hpp)
    std::string timing = "root";  // root or per-rank (backend.hpp's Timing)
    std::string rules;  // decision rules file for 'auto'

    // `mpi`: the backend runs MPI code ('native' allowed; 'all' includes native). 'auto' runs
    // everywhere (chosen per point by `rules`, which needs it).
    // 'all' leaves out hierarchical methods when there is no Topology. Errors name the option's
    // value.
    Batch make(int ranks, std::shared_ptr<const Topology> topology, bool mpi) const;
};

}  // namespace gridcoll
