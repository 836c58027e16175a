// Site leaders that talk directly — latency-optimal small-message collectives for sites joined
// by a full-mesh WAN, after MagPIe ([MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe:
// MPI's Collective Communication Operations for Clustered Wide Area Systems", PPoPP 1999): at the
// Topology's first real split (the sites) every leader reaches every other in one WAN message,
// never through a tree between leaders, whose depth costs a WAN latency per level (MPICH-G2's
// and Open MPI han's choice). Below the sites the levels run binomial trees (or recursive
// doubling for the barrier), level by level as in multilevel ([P001], Karonis et al., IPDPS 2000).
//
//   barrier    in-site barriers (deepest first), the leaders' direct barrier, in-site releases
//   bcast      the root to every leader (linear), binomial trees down each site
//   reduce     binomial trees up each site, every leader to the root (flat)
//   allreduce  binomial reduce up each site, the leaders' direct allreduce, binomial broadcast down
//
// Cost on C sites of n ranks, WAN latency L_w, LAN latency L_l, small messages: one L_w plus
// about 2 log2(n) L_l (barrier, allreduce) or log2(n) L_l (bcast, reduce), and (C - 1) message
// overheads at a leader; a tree among the leaders pays ceil(log2 C) L_w, twice for a barrier.
// Large messages belong to the bandwidth methods (multitree, wanstream): a leader sends C - 1
// copies.
//
// References: [MagPIe99], [P001] §3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "hierarchy.hpp"

namespace gridcoll::detail {

Schedule bcast_leaders(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_bcast(c, r, leaders_plan(r, r.root, Method("linear"), Method("binomial")), r.root);
    return s;
}

Schedule reduce_leaders(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_reduce(c, r, leaders_plan(r, r.root, Method("flat"), Method("binomial")), r.root, Span{Buf::Out, 0, r.bytes});
    return s;
}

Schedule allreduce_leaders(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_allreduce(c, r, leaders_plan(r, 0, Method("binomial"), Method("binomial")), Method("direct"));
    return s;
}

Schedule barrier_leaders(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_barrier(c, r, leaders_plan(r, 0, Method("direct"), Method("recursive-doubling")), false);
    return s;
}

}  // namespace gridcoll::detail
