// Closed-form predictions of collective algorithms, "as published":
//   - paper 002 (Pjesivac-Grbovic et al., "Performance Analysis of MPI Collective Operations"),
//     Tables 1-4: barrier, broadcast, reduce and alltoall under Hockney, LogP/LogGP and PLogP;
//   - paper 000 (Kielmann, Bal, Gorlatch, "Bandwidth-efficient Collective Communication for
//     Clustered Wide Area Systems"), §3: P-LogP segmented d-ary broadcast (single layer) and
//     the two-layer broadcasts (sequential MagPIe, pipelined).
// Algorithm names are the registry's (registry.cpp). Where the papers' text is garbled, the
// implementation files say how each formula was read (closed_forms_*.cpp).
//
// Segmentation (paper 002 §5): a message of m bytes in segments of m_s bytes has
// n_s = ceil(m / m_s) segments; segment 0 (or >= m) means one segment of m bytes.
#pragma once

#include <optional>
#include <string_view>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

enum class Model { Hockney, LogGP, PLogP };

std::string_view to_string(Model m);
// "hockney", "loggp" (or "logp"), "plogp"; throws Error listing the valid names.
Model parse_model(std::string_view name);

// True when a formula exists for (model, collective, algorithm).
bool has_formula(Model model, Collective coll, std::string_view algorithm);

// Predicted completion time (seconds) of `algorithm` for `coll` on P processes of one network
// level, or nullopt when the papers give no formula for that combination.
//   bytes:   the message size m of Request (bcast/reduce: the vector; alltoall: one block;
//            barrier: ignored);
//   segment: segment size m_s in bytes, 0 = unsegmented;
//   fanout:  the tree degree d for "kary" (ignored elsewhere);
//   gamma:   reduction compute time per byte (paper 002 §3.2; reduce only).
// P = 1 predicts 0. Throws Error for an unknown algorithm name (listing the valid ones), P < 1,
// negative sizes, fanout < 1 for "kary", or when `level` lacks the model's parameters.
// Flat-tree barrier: the best case T_min of Table 1 (paper 002 §6.2 models the best case).
std::optional<double> predict(Model model, Collective coll, std::string_view algorithm, int P, double bytes,
                              double segment, int fanout, const LevelParams& level, double gamma = 0.0);

// Corrected PLogP broadcast closed forms (not in the papers; plogp_bcast_corrected.cpp): for
// "binary" and "kary" the critical path of the tree the registry builds for this P (the
// published rows assume every tree level full: paper 002's binary row is exact only for
// P = 2^h - 1, paper 000's d-ary times are upper bounds), for "splitted-binary" paper 002's
// tree phase on that tree plus the final exchange of halves the PLogP row omits, with the
// halves' own segment size min(m_s, m/2). Other broadcasts: the published PLogP row (binomial,
// pipeline and linear are exact or tight already). nullopt for other collectives or where
// predict() has no PLogP formula; same errors as predict().
std::optional<double> predict_corrected(Collective coll, std::string_view algorithm, int P, double bytes,
                                        double segment, int fanout, const LevelParams& level);

// ---- paper 000, P-LogP broadcast -------------------------------------------------------------

// §3.1 single layer: d-ary tree (d >= P - 1: MagPIe's flat tree, exact; otherwise the gamma /
// lambda upper bounds), k = ceil(bytes / segment) segments, s = g, r = L + g.
double bcast_plogp_tree(const PLogPParams& p, int P, double bytes, double segment, int degree);

// §3.2 sequential composition T = T_w + T_l of MagPIe's original algorithm: a flat WAN tree over
// the `clusters` coordinators (s_w = max(g_l, os_w), r_w = L_w + g_w), then in every cluster of
// `cluster_size` processes a binomial LAN tree (paper 002 Table 2, PLogP binomial:
// ceil(log2 cluster_size) (L_l + k g_l(m)), which for k = 1 is the exact P-LogP binomial tree).
// The original sends whole messages: segment = 0 (or = bytes).
double bcast_magpie_sequential(const PLogPParams& wan, const PLogPParams& lan, int clusters, int cluster_size,
                               double bytes, double segment = 0.0);

// §3.2 sequential composition with d-ary trees in both layers, each with its own segment size:
// T = (k_w - 1) gamma_w + lambda_w + (k_l - 1) gamma_l + lambda_l.
double bcast_two_layer_sequential(const PLogPParams& wan, const PLogPParams& lan, int clusters, int cluster_size,
                                  double bytes, double wan_segment, int wan_degree, double lan_segment,
                                  int lan_degree);

// §3.2 pipelined two-layer broadcast: T = (k - 1) gamma + lambda_w + lambda_l with
// gamma = max(g_w(m), or_w(m) + d_w s_w(m) + d_l s_l(m)). clusters = 1 is the single-layer LAN
// tree; cluster_size = 1 has no LAN part (d_l ignored).
double bcast_two_layer_pipelined(const PLogPParams& wan, const PLogPParams& lan, int clusters, int cluster_size,
                                 double bytes, double segment, int wan_degree, int lan_degree);

}  // namespace gridcoll::model
