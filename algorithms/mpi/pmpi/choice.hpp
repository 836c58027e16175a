// Which method one intercepted call runs with, and why — the same answer at every rank of the
// communicator, because it reads only what MPI requires to be equal everywhere: the collective,
// the communicator (size, Topology), the message size in bytes, and for reductions the
// datatype's element size and whether the operation commutes. Never the root's datatype
// layout, never anything measured on one rank.
//
// Order: a collective's forced method (<coll>_algorithm), else the decision source (rules
// file, P-LogP optimiser for broadcasts, builtin); then the guards that send a call to the MPI
// library whatever was chosen: a one-rank or flat communicator for a topology-aware method, an
// empty message, a non-commutative operation for a method that reorders, a message over 1 GiB.
//
// builtin: the MPI library below min_bytes and for barriers; above it, when the Topology has a
// hierarchy, the topology-aware method of the table in choice.cpp (multi-tree broadcast and
// allreduce, multilevel reduce / scatter / gather / allgather, ECO all-to-all and scan).
#pragma once

#include <cstdint>
#include <string>

#include "gridcoll/method.hpp"
#include "gridcoll/model/rules.hpp"
#include "gridcoll/topology.hpp"
#include "settings.hpp"

namespace gridcoll::pmpi {

struct CallShape {
    Collective coll = Collective::Bcast;
    int ranks = 1;
    std::uint64_t bytes = 0;      // m (collective.hpp); 0 for a barrier
    std::uint64_t elem = 1;       // reductions: the datatype's size
    bool commutative = true;      // reductions: the operation commutes
    bool reducible = true;        // reductions: a datatype gridcoll can reduce (contiguous elements)
};

struct Choice {
    Method method;     // concrete; kNativeMethod = the MPI library's own call
    std::string why;   // one line, for the verbose log
    bool native() const { return method.algorithm == kNativeMethod; }
};

Choice choose(const Settings& s, const model::Rules& rules, const std::string& rules_origin, const Topology& topology,
              const CallShape& call);

}  // namespace gridcoll::pmpi
