// Building blocks of the hierarchical algorithms: a hierarchical schedule is a composition of
// flat schedules, each run by a group of ranks (paper 001's master groups) over a list of
// members rather than over ranks 0..P-1.
//
//   LevelGroup / level_groups   which groups a rank belongs to, level by level, for a root
//                               (root substitution, paper 001 Figure 5)
//   Composer                    appends a flat schedule built for a group to the rank's own
//                               schedule: peers become global ranks, buffers are placed, and
//                               each step that reads (or overwrites) bytes an earlier part wrote
//                               waits for that write only — so a master forwards segment k down
//                               as soon as segment k has arrived from above (pipelining across
//                               levels comes for free when the parts are segmented).
//
// Internal to algorithms/.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::detail {

// Which levels of the Topology a composition follows, widest first. Group i gathers the ranks
// of one cluster at level `levels[i]` (level -1: the whole communicator); its members are the
// masters of that cluster's parts at level `levels[i + 1]` (after the last: single ranks). A rank
// whose depth ends above level `levels[i + 1]` is a part of its own.
//   full multilevel on wan/lan/node:  {-1, 0, 1, 2}
//   MagPIe with cluster = lan:        {-1, 1}
struct Cuts {
    std::vector<int> levels;
};
// Every level of `t`: {-1, 0, ..., levels - 1}.
Cuts every_level(const Topology& t);
// The whole communicator, then the clusters of level `cluster_level` (MagPIe, ECO, two-layer).
// Throws Error when the Topology has no such level.
Cuts two_layers(const Topology& t, int cluster_level, const char* algorithm);

// One group a rank belongs to.
struct LevelGroup {
    int cut = 0;               // index into Cuts::levels
    std::vector<int> members;  // global ranks, increasing
    int root = 0;              // index into members of the group's root
    int me = 0;                // index into members of this rank
};

// The groups of more than one member that `rank` belongs to, widest first, when the whole
// operation is rooted at `root`. In each group the root is the member whose part holds the
// operation's root, else the part's master: its gateway when the Topology names one (paper 004:
// a message entering or leaving the part passes the gateway's node anyway, so making it the
// master saves a hop inside the part; this assumes the gateway node also runs a rank and
// forwards no slower than it computes), else its lowest rank. A part's master is also the root
// of the part's own group, so a rank belongs to the groups of a suffix of the cuts.
std::vector<LevelGroup> level_groups(const Topology& t, const Cuts& cuts, int rank, int root);

// Index of the group containing the whole communicator's first real split: every rank agrees
// on it (the cuts above it have one member only). -1 for a one-rank communicator.
int top_cut(const Topology& t, const Cuts& cuts, int root);

// Where an embedded schedule's buffers lie in the rank's own buffers.
struct Placement {
    Span in{Buf::In, 0, 0};    // only buf and off are used
    Span out{Buf::Out, 0, 0};
};

class Composer {
public:
    explicit Composer(Schedule& s) : s_(s) {}

    // Appends `part` (built for group member `part.rank()` of a group of `members.size()`
    // ranks): peers map through `members`, In and Out to `where`, Tmp to fresh scratch. Every
    // step also waits for `after` (when given). Returns the id of the first appended step.
    StepId embed(const Schedule& part, const std::vector<int>& members, const Placement& where,
                 StepId after = kNoStep);
    // Appends one step, with hazard tracking, outside of any part.
    StepId add(Step step, Deps deps = {});
    // Same, with dependencies from a container.
    StepId add(Step step, std::span<const StepId> deps);

    // The last step appended (kNoStep when none).
    StepId last() const { return s_.empty() ? kNoStep : static_cast<StepId>(s_.size_steps() - 1); }
    // A fresh scratch range of `bytes` at the end of Tmp.
    Span fresh_tmp(std::uint64_t bytes);
    Schedule& schedule() { return s_; }

private:
    // Appends `step` with deps_ plus the earlier writes (before step `since`) of the bytes it
    // reads or overwrites, and records what it writes.
    StepId append(const Step& step, StepId since);
    // Steps that wrote bytes of `sp` before step `since` (the start of the current part).
    void writers_before(const Span& sp, StepId since, std::vector<StepId>& out) const;
    void record_write(const Span& sp, StepId id);

    Schedule& s_;
    // Per buffer: start -> (end, writing step), non-overlapping.
    std::map<std::uint64_t, std::pair<std::uint64_t, StepId>> written_[3];
    std::vector<StepId> deps_;
};

// A flat method's schedule for a group member: the request `r` (collective, bytes, element,
// commutativity) with the group's size, rank and root and the method's own parameters.
Schedule build_for_group(const Request& r, const LevelGroup& g, const Method& m);
Schedule build_for_group(const Request& r, int size, int me, int root, const Method& m);

// Per-level method number `index` of `p.levels` (the last one repeats), or `fallback` when none
// is given. A segmented method without its own segment size takes the composition's (`p.segment`).
Method level_method(Collective c, const MethodParams& p, int index, const Method& fallback);

}  // namespace gridcoll::detail
