// P-LogP segmented pipelined two-layer broadcast — paper 000 §3.1-3.2 (Kielmann, Bal, Gorlatch,
// MagPIe): the message cut into segments of m bytes, each forwarded as soon as it arrives; a
// tree of degree d_w among the cluster coordinators across the WAN and a tree of degree d_l
// inside every cluster; a coordinator serves its WAN children before its own cluster.
// Method text: twolayer:seg=<m>[kary:k=<d_w>|kary:k=<d_l>] (any flat broadcast may stand at
// either layer); level = the Topology level that counts as cluster (default 1). Plain
// `twolayer` (no per-layer methods) asks the P-LogP optimiser (gridcoll/model/plogp_optimizer.hpp,
// paper 000's heuristic) for (m, d_w, d_l) from the Topology's link numbers (the WAN = the level
// above the clusters, the LAN = the cluster level), at run time, on every backend; with a
// segment given (twolayer:seg=64K) only for the degrees; without link numbers it uses binary
// trees and the given segment size. The optimiser's segments are at least MPI's eager limit
// (64 KiB, kEagerLimit) unless the message is smaller: P-LogP spaces a node's segments by its
// gap g(m), but an MPI send under the eager limit completes at once, and SMPI then puts all of
// them on the link together, sharing it, so they all arrive at the end and the pipeline is lost
// (das-4x32, 4 MiB: its free choice, 4 KiB segments and 3-ary trees, ran for over 15 minutes of
// wall time under SMPI without finishing; at 64 KiB it picks 3-ary trees, 5.056 s).
//
//   WAN  coordinators, d_w-ary tree:      c0 -> c1, c2 ; c1 -> c3 ...   segment k, then k+1 ...
//   LAN  inside each cluster, d_l-ary:    c1 -> a, b ; a -> ...         segment k while k+1 is
//                                                                       still on the WAN
// Cost (P-LogP, paper 000 §3.2): T = (n_s - 1) gamma + lambda, gamma = max over the layers of the
// per-segment gap (d_w g_w(m), d_l g_l(m), and the coordinator's d_w s_w + d_l g_l(m)), lambda
// the first segment's path, h_w (L_w + g_w(m)) + h_l (L_l + g_l(m)).
//
// References: [P000] §3.1-3.2 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "hierarchy.hpp"

#include <algorithm>

#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

MethodParams twolayer_choice(const Topology& t, std::uint64_t bytes, int cluster_level, std::uint64_t segment) {
    MethodParams p;
    p.cluster_level = cluster_level;
    p.segment = segment;
    const int lan = std::clamp(cluster_level, 0, t.levels() - 1);
    const auto wan_link = t.link(std::max(lan - 1, 0)), lan_link = t.link(lan);
    if (!wan_link || !lan_link || wan_link->bandwidth_Bps <= 0 || lan_link->bandwidth_Bps <= 0) return p;
    const Sites sites = sites_at(t, lan);
    std::size_t largest = 1;
    for (const auto& m : sites.members) largest = std::max(largest, m.size());
    model::SearchLimits limits;
    limits.segment = segment;
    limits.min_segment = kEagerLimit;
    const model::TwoLayerChoice ch = model::optimize_two_layer(
        bytes, sites.count(), static_cast<int>(largest),
        model::plogp_from_link(wan_link->latency_s, wan_link->bandwidth_Bps),
        model::plogp_from_link(lan_link->latency_s, lan_link->bandwidth_Bps), model::Search::Heuristic, limits);
    p.segment = ch.segment;
    p.levels = {Method("kary", ch.segment, std::max(1, ch.wan_degree)), Method("kary", ch.segment, std::max(1, ch.lan_degree))};
    return p;
}

Schedule bcast_twolayer(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    MethodParams p = r.params;
    if (p.levels.empty()) {
        const MethodParams chosen = twolayer_choice(*r.topology, r.bytes, r.params.cluster_level, r.params.segment);
        if (!chosen.levels.empty()) p = chosen;
    }
    const Method fallback("kary", 0, 2);
    compose_bcast(c, r,
                  two_layer_plan(r, "twolayer", level_method(r.coll, p, 0, fallback), level_method(r.coll, p, 1, fallback)),
                  r.root);
    return s;
}

}  // namespace gridcoll::detail
