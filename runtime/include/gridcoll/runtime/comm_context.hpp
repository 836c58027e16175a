// A communicator as gridcoll's MPI layer sees it: its Topology, how `auto` is decided on it,
// and the schedules built for it. The benchmark (bench.hpp) keeps one; the PMPI library will
// keep one per communicator.
//
// Schedules are built once per (operation, method, root) — the operation's text form with the
// concrete root is the cache key — and reused for every later call, so building never falls in
// a timed region or a repeated call's path.
#pragma once

#include <mpi.h>

#include <map>
#include <memory>
#include <string>

#include "gridcoll/runtime/executor.hpp"
#include "gridcoll/algorithms/operation.hpp"
#include "gridcoll/algorithms/resolver.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll {

// Where an MPI program gets its communicator's Topology:
//   "flat"        one level, every rank in it (the default; flat algorithms only)
//   "node"        two levels, the network and the node: ranks that MPI_Comm_split_type
//                 (MPI_COMM_TYPE_SHARED) puts together share a node (SMPI: one simulated host)
//   "discover"    measured now by round-trip times (discover_comm.hpp; paper 003's ECO)
//   "discover:F"  the same, cached in file F: reused when F was discovered for this job
//   a file name   a rank map (Topology::to_text, as `gridcoll platform ranks` writes it)
// Collective over `comm`. Errors (an unreadable map, one of another size) are the same at every
// rank, so every rank throws.
std::shared_ptr<const Topology> comm_topology(MPI_Comm comm, const std::string& source);

// The method `op` runs with, and how it was chosen.
struct Decision {
    Method method;       // concrete: never "auto"
    std::string choice;  // empty when op.method was concrete, else e.g. "auto:rules"
};

class CommContext {
public:
    // Duplicates `comm`, so gridcoll's traffic never matches the application's. `resolver`
    // decides `auto` (gridcoll/algorithms/resolver.hpp; by default the builtin decision).
    CommContext(MPI_Comm comm, std::shared_ptr<const Topology> topology, ResolverSettings resolver = {});
    ~CommContext();
    CommContext(const CommContext&) = delete;
    CommContext& operator=(const CommContext&) = delete;

    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    const std::shared_ptr<const Topology>& topology() const { return topology_; }

    // op.method made concrete by the resolver on this communicator's Topology: for `auto` the
    // rules' choice or the builtin decision, for plain `twolayer` the P-LogP optimiser's.
    Decision decide(const Operation& op) const;

    // This rank's built schedule of `op` (a registry method) with root `root`: built on first
    // use, then from the cache. Throws Error from the builder.
    const BuiltSchedule& schedule(const Operation& op, int root);
    std::size_t cached_schedules() const { return cache_.size(); }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::shared_ptr<const Topology> topology_;
    ResolverSettings resolver_;
    std::map<std::string, std::unique_ptr<BuiltSchedule>> cache_;
};

}  // namespace gridcoll
