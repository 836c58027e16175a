#include <algorithm>
#include "gridcoll/algorithms/batch_options.hpp"
#include "gridcoll/algorithms/topology.hpp"

#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll {

Batch BatchOptions::make(int ranks, std::shared_ptr<const Topology> topology, bool mpi) const {
    Batch b;
    b.shape.coll = parse_collective(collective);
    b.shape.ranks = ranks;
    b.shape.root = root;
    b.shape.type = parse_elem_type(type);
    b.shape.op = parse_reduce_op(op);
    b.shape.counts = parse_count_pattern(counts);
    b.shape.topology = std::move(topology);
    MethodParams defaults;
    defaults.segment = parse_bytes(segment);
    defaults.fanout = fanout;
    // No methods given: binomial where the collective has it (the papers' baseline), else auto.
    std::string methods = algorithm;
    if (methods.empty()) {
        const auto all = algorithms_for(b.shape.coll);
        const bool binomial = std::any_of(all.begin(), all.end(), [](const Algorithm* a) { return a->name == "binomial"; });
        methods = binomial ? "binomial" : std::string(kAutoMethod);
    }
    b.methods = parse_method_list(b.shape.coll, methods, defaults, MethodListOptions{mpi, true});
    if (!rules.empty() && std::none_of(b.methods.begin(), b.methods.end(), [](const Method& m) { return m.algorithm == kAutoMethod; }))
        throw Error("--rules " + rules + " is for the method 'auto', which the methods '" + methods + "' do not include");
    b.rules = rules;
    if (algorithm == "all") {
        std::erase_if(b.methods, [&](const Method& m) {  // hierarchical methods need a hierarchy
            return (!b.shape.topology || b.shape.topology->is_flat()) &&
                   find_algorithm(b.shape.coll, m.algorithm).needs_topology;
        });
        if (mpi) b.methods.emplace_back(std::string(kNativeMethod));
    }
    b.sizes = parse_byte_list(bytes);
    b.reps = reps;
    b.warmup = warmup;
    b.verify = verify;
    b.timing = parse_timing(timing);
    return b;
}

}  // namespace gridcoll
