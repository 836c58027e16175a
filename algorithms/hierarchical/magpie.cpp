// MagPIe's original two-layer collectives — paper 000 §3 and its reference [24] (Kielmann et
// al., PPoPP 1999): one coordinator per cluster, a flat tree from the root to the coordinators
// across the wide-area network, a binomial tree inside each cluster; the phases run one after
// the other (a coordinator starts its cluster's tree once it holds the whole message, and the
// root serves the other coordinators before its own cluster). The cluster is the Topology level
// `level` (method key; default 1, the level below the WAN): on karonis-grid, magpie:level=1 is
// "cluster = site", magpie:level=2 "cluster = machine" (paper 001 §4).
//
//   root 0 --WAN--> 32, 64, 96            (flat tree, whole message each, one after another)
//   then in every cluster: binomial tree from its coordinator
//
// Cost (broadcast, C clusters of n ranks): (C - 1)(o + M g_w) + L_w + ceil(log2 n)(L_l + M g_l)
// (the paper's "grows with the number of clusters"). Reduce mirrors it (binomial in, flat over
// the WAN); allreduce = reduce to rank 0 + broadcast from it; barrier = flat in every cluster,
// flat among the coordinators, then the release. Scatter: the root sends every coordinator its
// cluster's blocks in one message, coordinators scatter them flat; gather is the reverse.
//
// References: [P000] §3; [P001] §4 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "blocks.hpp"
#include "hierarchy.hpp"

namespace gridcoll::detail {

namespace {
LevelPlan magpie_plan(const Request& r, const char* wan, const char* lan) {
    LevelPlan p = two_layer_plan(r, "magpie", Method(wan), Method(lan));
    p.sequential = true;
    return p;
}
}  // namespace

Schedule bcast_magpie(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_bcast(c, r, magpie_plan(r, "linear", "binomial"), r.root);
    return s;
}

Schedule reduce_magpie(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_reduce(c, r, magpie_plan(r, "flat", "binomial"), r.root, Span{Buf::Out, 0, r.bytes});
    return s;
}

Schedule barrier_magpie(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_barrier(c, r, magpie_plan(r, "flat", "flat"));
    return s;
}

Schedule allreduce_magpie(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const Span out{Buf::Out, 0, r.bytes};
    compose_reduce(c, r, magpie_plan(r, "flat", "binomial"), 0, out);
    compose_bcast(c, r, magpie_plan(r, "linear", "binomial"), 0);
    return s;
}

Schedule scatter_magpie(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_scatter(c, r, two_layers(*r.topology, r.params.cluster_level, "magpie"), r.root);
    return s;
}

Schedule gather_magpie(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_gather(c, r, two_layers(*r.topology, r.params.cluster_level, "magpie"), r.root);
    return s;
}

}  // namespace gridcoll::detail
