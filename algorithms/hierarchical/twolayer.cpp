// P-LogP segmented pipelined two-layer broadcast — paper 000 §3.1-3.2 (Kielmann, Bal, Gorlatch,
// MagPIe): the message cut into segments of m bytes, each forwarded as soon as it arrives; a
// tree of degree d_w among the cluster coordinators across the WAN and a tree of degree d_l
// inside every cluster; a coordinator serves its WAN children before its own cluster.
// Method text: twolayer:seg=<m>[kary:k=<d_w>|kary:k=<d_l>] (any flat broadcast may stand at
// either layer); level = the Topology level that counts as cluster (default 1). The method
// `auto` asks the P-LogP optimiser (gridcoll/model/plogp_optimizer.hpp) for (m, d_w, d_l).
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

namespace gridcoll::detail {

Schedule bcast_twolayer(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const Method fallback("kary", 0, 2);
    compose_bcast(c, r,
                  two_layer_plan(r, "twolayer", level_method(r.coll, r.params, 0, fallback),
                                 level_method(r.coll, r.params, 1, fallback)),
                  r.root);
    return s;
}

}  // namespace gridcoll::detail
