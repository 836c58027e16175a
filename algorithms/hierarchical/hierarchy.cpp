#include "hierarchy.hpp"

#include "gridcoll/algorithms/tree.hpp"

namespace gridcoll::detail {

namespace {

Request as(const Request& r, Collective c) {
    Request q = r;
    q.coll = c;
    return q;
}

// Reduces over groups[first..] (widest first in the vector, processed deepest first) into a
// fresh scratch range at each group root; at groups[first] the root's result goes to
// `*out_at_first` instead, when given. Returns where this rank's partial result lies afterwards.
Span reduce_up(Composer& c, const Request& r, const LevelPlan& plan, const std::vector<LevelGroup>& groups,
               std::size_t first, const Span* out_at_first) {
    const Request q = as(r, Collective::Reduce);
    Span partial{Buf::In, 0, r.bytes};
    for (std::size_t i = groups.size(); i-- > first;) {
        const LevelGroup& g = groups[i];
        const bool root = g.me == g.root;
        const Span result = !root ? Span{} : i == first && out_at_first ? *out_at_first : c.fresh_tmp(r.bytes);
        c.embed(build_for_group(q, g, plan.methods[static_cast<std::size_t>(g.cut)]), g.members,
                Placement{partial, result}, plan.sequential ? c.last() : kNoStep);
        if (root) partial = result;
    }
    return partial;
}

void bcast_down(Composer& c, const Request& r, const LevelPlan& plan, const std::vector<LevelGroup>& groups,
                std::size_t first) {
    const Request q = as(r, Collective::Bcast);
    for (std::size_t i = first; i < groups.size(); ++i) {
        const LevelGroup& g = groups[i];
        c.embed(build_for_group(q, g, plan.methods[static_cast<std::size_t>(g.cut)]), g.members, Placement{},
                plan.sequential ? c.last() : kNoStep);
    }
}

}  // namespace

void compose_bcast(Composer& c, const Request& r, const LevelPlan& plan, int root) {
    bcast_down(c, r, plan, level_groups(*r.topology, plan.cuts, r.rank, root), 0);
}

void compose_bcast(Composer& c, const Request& r, const LevelPlan& plan, int root, const TopBcast& top) {
    const auto groups = level_groups(*r.topology, plan.cuts, r.rank, root);
    const bool in_top = !groups.empty() && groups.front().cut == top_cut(*r.topology, plan.cuts, root);
    top(c, in_top ? &groups.front() : nullptr);
    bcast_down(c, r, plan, groups, in_top ? 1 : 0);
}

void compose_reduce(Composer& c, const Request& r, const LevelPlan& plan, int root, Span out) {
    const auto groups = level_groups(*r.topology, plan.cuts, r.rank, root);
    if (groups.empty()) {  // a communicator of one rank
        if (r.rank == root && r.bytes > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::In, 0, r.bytes}, out});
        return;
    }
    reduce_up(c, r, plan, groups, 0, r.rank == root ? &out : nullptr);
}

void compose_reduce(Composer& c, const Request& r, const LevelPlan& plan, int root, Span out, const TopPhase& top) {
    const auto groups = level_groups(*r.topology, plan.cuts, r.rank, root);
    if (groups.empty()) {  // a communicator of one rank
        if (r.rank == root && r.bytes > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{Buf::In, 0, r.bytes}, out});
        return;
    }
    const bool in_top = groups.front().cut == top_cut(*r.topology, plan.cuts, root);
    const Span partial = reduce_up(c, r, plan, groups, in_top ? 1 : 0, nullptr);
    top(c, in_top ? &groups.front() : nullptr, partial, out);
}

void compose_barrier(Composer& c, const Request& r, const LevelPlan& plan, bool release_top) {
    const Request q = as(r, Collective::Barrier);
    const auto groups = level_groups(*r.topology, plan.cuts, r.rank, 0);
    for (std::size_t i = groups.size(); i-- > 0;) {
        const LevelGroup& g = groups[i];
        c.embed(build_for_group(q, g, plan.methods[static_cast<std::size_t>(g.cut)]), g.members, Placement{}, c.last());
    }
    // Release: a zero-byte token down a binomial tree of every group, widest first. A master
    // releases its deeper groups once it is released itself (or, at the top, once everyone has
    // arrived).
    StepId released = c.last();
    const int top = top_cut(*r.topology, plan.cuts, 0);
    for (const LevelGroup& g : groups) {
        if (!release_top && g.cut == top) continue;
        const int n = static_cast<int>(g.members.size());
        const TreeNode t = binomial_tree(n, g.root, g.me);
        if (t.parent >= 0) released = c.add(Step{Op::Recv, Order::DstLeft, 0, g.members[t.parent], {}, {}}, {released});
        for (int child : t.children) c.add(Step{Op::Send, Order::DstLeft, 0, g.members[child], {}, {}}, {released});
    }
}

void compose_allreduce(Composer& c, const Request& r, const LevelPlan& plan, const TopPhase& top) {
    const Topology& t = *r.topology;
    const auto groups = level_groups(t, plan.cuts, r.rank, 0);
    const int top_group = top_cut(t, plan.cuts, 0);
    const Span in{Buf::In, 0, r.bytes}, out{Buf::Out, 0, r.bytes};
    if (groups.empty()) {
        if (r.bytes > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, in, out});
        return;
    }
    // Groups below the top one: reduce up; the top group: the top phase; then down again.
    const std::size_t below = groups.front().cut == top_group ? 1 : 0;
    const Span partial = reduce_up(c, r, plan, groups, below, nullptr);
    top(c, below == 1 ? &groups.front() : nullptr, partial, out);
    bcast_down(c, r, plan, groups, below);
}

void compose_allreduce(Composer& c, const Request& r, const LevelPlan& plan, const Method& top) {
    compose_allreduce(c, r, plan, [&](Composer& cc, const LevelGroup* g, Span partial, Span out) {
        if (g) cc.embed(build_for_group(as(r, Collective::Allreduce), *g, top), g->members, Placement{partial, out},
                        plan.sequential ? cc.last() : kNoStep);
    });
}

LevelPlan leaders_plan(const Request& r, int root, const Method& top, const Method& lower) {
    LevelPlan p;
    p.cuts = every_level(*r.topology);
    const int first = top_cut(*r.topology, p.cuts, root);
    for (std::size_t i = 0; i < p.cuts.levels.size(); ++i) p.methods.push_back(static_cast<int>(i) == first ? top : lower);
    return p;
}

LevelPlan multilevel_plan(const Request& r, const Method& fallback) {
    LevelPlan p;
    p.cuts = every_level(*r.topology);
    for (int level : p.cuts.levels) p.methods.push_back(level_method(r.coll, r.params, level, fallback));
    return p;
}

LevelPlan two_layer_plan(const Request& r, const char* algorithm, const Method& wan, const Method& lan) {
    LevelPlan p;
    p.cuts = two_layers(*r.topology, r.params.cluster_level, algorithm);
    p.methods = {wan, lan};
    return p;
}

}  // namespace gridcoll::detail
