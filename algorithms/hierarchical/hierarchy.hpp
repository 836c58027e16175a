// Compositions over the levels of a Topology (paper 001 §3, Figures 3-5): the generic
// hierarchical broadcast, reduce, barrier and allreduce that multilevel, MagPIe, ECO and the
// P-LogP two-layer broadcast instantiate with their own cuts and per-level methods.
//
// Internal to algorithms/.
#pragma once

#include <functional>
#include <vector>

#include "compose.hpp"

namespace gridcoll::detail {

// What a composition runs: the levels it follows and, per cut, the flat method of the group.
struct LevelPlan {
    Cuts cuts;
    std::vector<Method> methods;  // one per cut
    // MagPIe's original: a master starts its part of the next level only after all its steps of
    // the level above (phases sequential). Otherwise parts overlap, segment by segment.
    bool sequential = false;
};

// Broadcast level by level from the root, widest level first (paper 001 Figure 5).
//   cost: sum over cuts of the level method's cost, minus the overlap of pipelined segments.
void compose_bcast(Composer& c, const Request& r, const LevelPlan& plan, int root);
// The same with a top phase of the caller's own in place of the top group's broadcast: every
// rank runs it first (`top_group`: the top group at its members, nullptr elsewhere); it must leave
// the message in Out at the top group's members; the groups below then broadcast from them.
using TopBcast = std::function<void(Composer& c, const LevelGroup* top_group)>;
void compose_bcast(Composer& c, const Request& r, const LevelPlan& plan, int root, const TopBcast& top);
// Reduce level by level towards the root, deepest level first; the result lands in `out` at
// the root (Out for MPI_Reduce). Returns nothing; hazards order later parts.
void compose_reduce(Composer& c, const Request& r, const LevelPlan& plan, int root, Span out);
// The same with a top phase of the caller's own in place of the top group's reduce (TopPhase,
// below): the groups below reduce up to the top group's members first; the top phase gets where
// this rank's partial result lies and `out` (meaningful at the root), where the total goes.
using TopPhase = std::function<void(Composer& c, const LevelGroup* top_group, Span partial, Span out)>;
void compose_reduce(Composer& c, const Request& r, const LevelPlan& plan, int root, Span out, const TopPhase& top);
// Barrier: each level's barrier among its masters, deepest first, then a zero-byte release down
// a binomial tree of every group, widest first. `release_top` false: the top group's barrier is
// symmetric (every member leaves it knowing all have arrived), so its release is left out.
void compose_barrier(Composer& c, const Request& r, const LevelPlan& plan, bool release_top = true);
// Allreduce: reduce up to the masters of the top group, the flat allreduce `top` among them,
// broadcast down (the HAN / MPICH-G shape), pipelined by segments.
void compose_allreduce(Composer& c, const Request& r, const LevelPlan& plan, const Method& top);
// The same with a top phase of the caller's own, which every rank runs between the reduce up
// and the broadcast down: `top_group` is the top group at its masters (nullptr elsewhere),
// `partial` where this rank's partial result lies, `out` where the masters leave the total.
void compose_allreduce(Composer& c, const Request& r, const LevelPlan& plan, const TopPhase& top);

// Every level, `top` at the first real split (on a WAN: among the sites), `lower` below it.
LevelPlan leaders_plan(const Request& r, int root, const Method& top, const Method& lower);
// The plan of multilevel (every level; method per level from r.params, default `fallback`).
LevelPlan multilevel_plan(const Request& r, const Method& fallback);
// A two-layer plan (whole communicator, then r.params.cluster_level) with the given methods.
LevelPlan two_layer_plan(const Request& r, const char* algorithm, const Method& wan, const Method& lan);

}  // namespace gridcoll::detail
