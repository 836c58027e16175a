// The one resolver of a method: given an operation (collective, communicator size, message
// size, reduction, its Topology) and the settings, the concrete method it runs and why. Every
// backend (event simulator, the MPI benchmark under Open MPI and SMPI, the checks before a
// batch starts) and the PMPI library call resolve(); no other place maps sizes to methods.
//
// In order:
//   1. the method asked for: the collective's forced method (Settings::forced, the PMPI
//      library's <coll>_algorithm), else the operation's own;
//   2. `auto`: the rules file's rule for (collective, ranks, bytes), else, with `plogp_bcast`,
//      plain twolayer for a broadcast over a hierarchy, else the builtin decision (below);
//   3. plain `twolayer` (no per-layer methods): the P-LogP optimiser's parameters for this
//      message and Topology (paper 000 §3.2), named in the choice column ("plogp:...");
//   4. with `native_fallback` (an MPI library underneath takes what gridcoll does not): the MPI
//      library's own method for a one-rank communicator, an empty message, a hierarchical method
//      on a flat Topology, a datatype with gaps, a non-commutative operation for a method that
//      reorders, a message that is not whole elements, more than 1 GiB a call.
//
// builtin (choice column "auto:builtin"): the MPI library's own method on a flat Topology, on one
// site, or where the sites' links are not a WAN (under 10x the latency of the links below); between
// WAN sites the method measured fastest for the collective and size (algorithms/choice/builtin.cpp:
// site leaders that talk directly for small messages, the bandwidth methods for large ones,
// the MPI library's own for all-to-all). Where the MPI library's own cannot run (the event
// simulator, the closed forms: native_runs off), the fixed default (model/rules.hpp's
// default_method) stands in for it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/operation.hpp"

namespace gridcoll {

struct ForcedMethod {
    Method method;         // may be `auto` (then the decision below runs)
    std::string variable;  // where it was set, for reasons
};

struct ResolverSettings {
    model::Rules rules;        // empty: no rules file
    std::string rules_origin;  // the file, for reasons ("rules das.rules:12")
    bool plogp_bcast = false;  // `auto` broadcasts over a hierarchy: the P-LogP optimiser's twolayer
    bool native_runs = true;     // the MPI library's own method can run (not in a model)
    std::uint64_t min_bytes = 0;  // builtin: smaller messages go to the MPI library (barriers aside)
    std::array<std::optional<ForcedMethod>, kCollectiveCount> forced;
    bool native_fallback = false;  // step 4 above
};

// Settings for a backend running a batch: `rules_file` (may be empty) read now; errors name its
// line. `native_runs`: false for a backend that models gridcoll's schedules only.
ResolverSettings rules_settings(const std::string& rules_file, bool native_runs = true);

// What a caller knows of a call beyond the Operation (the PMPI library's datatypes).
struct CallTraits {
    std::uint64_t elem = 0;  // the datatype's size in bytes; 0: the operation's element type's
    bool reducible = true;   // reductions: contiguous elements gridcoll can combine
};

struct Resolution {
    Method method;       // what runs, concrete: never `auto`; kNativeMethod = the MPI library's own
    Method named;        // the same as named before the optimiser filled in parameters (plain
                         // `twolayer` stays plain): the method column of result rows
    std::string choice;  // the result row's choice column: "", "auto:rules", "auto:builtin",
                         // "plogp:<method>" or "auto:...+plogp:<method>"
    std::string reason;  // one line for logs ("rules das.rules:12", "builtin: one site")
    bool native() const { return method.algorithm == kNativeMethod; }
};

// op.topology may be null (a flat communicator). Never throws for a method the registry knows.
Resolution resolve(const Operation& op, const ResolverSettings& settings, const CallTraits& traits = {});

}  // namespace gridcoll
