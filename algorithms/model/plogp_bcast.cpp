// Paper 000 (Kielmann, Bal, Gorlatch, IPDPS 2000) §3: P-LogP broadcast closed forms.
//   §3.1 single layer:   T = (k - 1) gamma + lambda   (flat tree exact, d-ary tree upper bounds)
//   §3.2 sequential:     T = T_w + T_l = (k_w - 1) gamma_w + lambda_w + (k_l - 1) gamma_l + lambda_l
//   §3.2 pipelined:      T = (k - 1) gamma + lambda_w + lambda_l,
//                        gamma = max(g_w(m), or_w(m) + d_w s_w(m) + d_l s_l(m))
// with k = ceil(M / m), s_w = max(g_l, os_w), r_w = L_w + g_w (§2.1). The arithmetic is in
// plogp_kernel.hpp (shared with the optimiser); this file checks arguments and segments.
// MagPIe's original LAN tree is binomial; its time is paper 002's Table 2 PLogP binomial row,
// ceil(log2 P)(L + k g(m)) (for k = 1 this is the exact P-LogP binomial tree: the root's i-th
// child receives at L + i g and its subtree of order q - i completes (q - i)(L + g) later).
//
// References: [P000] §2.1, §3.1-§3.2; [MagPIe99]; [P002] Table 2 (algorithms/REFERENCES.md).
#include <cmath>
#include <cstdio>
#include <string>

#include "closed_forms_detail.hpp"

#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/model/plogp_kernel.hpp"

namespace gridcoll::model {

namespace {

std::string num(double v) { return format_number(v); }

void check_count(const char* what, int v) {
    if (v < 1) throw Error(std::string(what) + " must be >= 1, got " + std::to_string(v));
}

// k and m for a message of `bytes` in segments of `segment` (0 or >= bytes: one segment).
struct KM {
    double k = 1, m = 0;
};
KM segments(double bytes, double segment, const char* what = "segment size") {
    if (!(bytes >= 0) || !std::isfinite(bytes)) throw Error("message size must be >= 0 bytes, got " + num(bytes));
    if (!(segment >= 0) || !std::isfinite(segment))
        throw Error(std::string(what) + " must be >= 0 bytes, got " + num(segment));
    if (segment > 0 && segment < bytes) return {std::ceil(bytes / segment), segment};
    return {1, bytes};
}

double tree(const detail::SegmentCosts& c, int P, double k, int degree) {
    const int d = std::min(degree, std::max(P - 1, 1));
    return detail::tree_time(c, P, k, d, detail::tree_height(d, P));
}

}  // namespace

double bcast_plogp_tree(const PLogPParams& p, int P, double bytes, double segment, int degree) {
    check_count("number of processes", P);
    check_count("tree degree", degree);
    const KM s = segments(bytes, segment);
    return tree(detail::costs(p, s.m), P, s.k, degree);
}

double bcast_magpie_sequential(const PLogPParams& wan, const PLogPParams& lan, int clusters, int cluster_size,
                               double bytes, double segment) {
    check_count("number of clusters", clusters);
    check_count("cluster size", cluster_size);
    const KM s = segments(bytes, segment);
    const double t_w = tree(detail::wan_costs(wan, lan, s.m), clusters, s.k, clusters - 1 > 0 ? clusters - 1 : 1);
    const double t_l = cluster_size > 1 ? detail::ceil_log2(cluster_size) * (lan.L + s.k * lan.g(s.m)) : 0.0;
    return t_w + t_l;
}

double bcast_two_layer_sequential(const PLogPParams& wan, const PLogPParams& lan, int clusters, int cluster_size,
                                  double bytes, double wan_segment, int wan_degree, double lan_segment,
                                  int lan_degree) {
    check_count("number of clusters", clusters);
    check_count("cluster size", cluster_size);
    check_count("WAN tree degree", wan_degree);
    check_count("LAN tree degree", lan_degree);
    const KM w = segments(bytes, wan_segment, "WAN segment size");
    const KM l = segments(bytes, lan_segment, "LAN segment size");
    return tree(detail::wan_costs(wan, lan, w.m), clusters, w.k, wan_degree) +
           tree(detail::costs(lan, l.m), cluster_size, l.k, lan_degree);
}

double bcast_two_layer_pipelined(const PLogPParams& wan, const PLogPParams& lan, int clusters, int cluster_size,
                                 double bytes, double segment, int wan_degree, int lan_degree) {
    check_count("number of clusters", clusters);
    check_count("cluster size", cluster_size);
    check_count("WAN tree degree", wan_degree);
    check_count("LAN tree degree", lan_degree);
    const KM s = segments(bytes, segment);
    if (clusters == 1) return tree(detail::costs(lan, s.m), cluster_size, s.k, lan_degree);
    const int dw = std::min(wan_degree, clusters - 1);
    const int dl = cluster_size > 1 ? std::min(lan_degree, cluster_size - 1) : 0;
    return detail::pipelined_time(detail::wan_costs(wan, lan, s.m), detail::costs(lan, s.m), s.k, dw,
                                  detail::tree_height(dw, clusters), dl, detail::tree_height(dl, cluster_size));
}

}  // namespace gridcoll::model
