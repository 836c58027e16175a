// Multilevel collectives — paper 001 (Karonis et al., MPICH-G), Figures 3-5: level by level
// over master ranks, any depth, any root (root substitution: in the root's cluster the root is
// the master). The method of each level is a flat algorithm of the registry with its own
// parameters, `multilevel:seg=64K[linear|kary:k=4|binomial]` (widest level first, the last one
// repeating; default binomial at every level, as MPICH-G). With a segment size, a master
// forwards segment k down while segment k+1 still crosses the level above (compose.hpp).
//
//   level 0 (wan)    0 ------------- 32 ------------ 64        masters of the sites
//   level 1 (lan)    0 -- 8 -- 16    32 -- 40 ...              masters of the nodes
//   level 2 (node)   0 1 2 ... 7     ...                       ranks of a node
//
// Cost: the sum of the levels' flat costs, each on its own network, minus the pipelined
// overlap: about max over levels of (n_s g_l(m_s)) + sum over levels of the first segment's
// path (Hockney: sum_l (h_l + n_s - 1)(alpha_l + m_s beta_l) without overlap).
// Allreduce: binomial reduce up (segmented), the top level's allreduce method among the top
// masters (default recursive-doubling), binomial broadcast down. Barrier: each level's barrier
// method (default recursive-doubling), deepest first, then a binomial release. Scatter and
// gather: a flat tree at every level, each part's blocks in pieces of whole blocks of about 64 KiB
// (seg= to change), so a master passes on the first pieces while the rest still arrive (blocks.hpp); allgather:
// that gather to rank 0, then the multilevel broadcast (binomial per level) of all P blocks.
//
// References: [P001] §3, Figures 3-5 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "blocks.hpp"
#include "hierarchy.hpp"

namespace gridcoll::detail {

namespace {

// The pieces of a part's blocks in scatter and gather: seg= if given, else 64 KiB.
std::uint64_t block_piece(const Request& r) { return r.params.segment ? r.params.segment : 64 * 1024; }

}  // namespace

Schedule bcast_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_bcast(c, r, multilevel_plan(r, Method("binomial")), r.root);
    return s;
}

Schedule reduce_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_reduce(c, r, multilevel_plan(r, Method("binomial")), r.root, Span{Buf::Out, 0, r.bytes});
    return s;
}

Schedule barrier_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_barrier(c, r, multilevel_plan(r, Method("recursive-doubling")));
    return s;
}

Schedule allreduce_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    LevelPlan plan;
    plan.cuts = every_level(*r.topology);
    plan.methods.assign(plan.cuts.levels.size(), Method("binomial", r.params.segment));
    compose_allreduce(c, r, plan, level_method(r.coll, r.params, 0, Method("recursive-doubling")));
    return s;
}

Schedule scatter_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_scatter(c, r, every_level(*r.topology), r.root, Span{Buf::In, 0, 0}, Span{Buf::Out, 0, 0}, block_piece(r));
    return s;
}

Schedule gather_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_gather(c, r, every_level(*r.topology), r.root, Span{Buf::In, 0, 0}, Span{Buf::Out, 0, 0}, block_piece(r));
    return s;
}

Schedule allgather_multilevel(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_gather(c, r, every_level(*r.topology), 0);
    Request all = r;
    all.coll = Collective::Bcast;
    all.bytes = r.bytes * static_cast<std::uint64_t>(r.size);
    LevelPlan plan;
    plan.cuts = every_level(*r.topology);
    plan.methods.assign(plan.cuts.levels.size(), Method("binomial", r.params.segment));
    compose_bcast(c, all, plan, 0);
    return s;
}

}  // namespace gridcoll::detail
