// Corrected PLogP broadcast closed forms (model::predict_corrected): the trees the registry
// builds, costed under the PLogP definitions of paper 000 §2 / paper 002 §3 and the event
// simulator's rules (a node serves its children in order, one message per g(m); a receive
// posted in time completes at L + g(m) after the send starts; the root serves segment k to every
// child before segment k + 1 to any; an inner node's cycle per segment is
// max{c g, o_r + (c - 1) g + o_s} for c children, paper 002's binary max{2 g, o_r + g + o_s}).
//
// Why: paper 002's binary row and paper 000's d-ary bounds assume every tree level full (the
// binary row's (ceil(log2(P+1)) - 1)(L + 2 g) is exact only for P = 2^h - 1; for P = 32 it
// charges five "second child" edges where the tree has four), and paper 002's splitted-binary
// PLogP row has no term for the final exchange of halves (its Hockney and LogGP rows have one).
//
// d-ary tree (BFS numbering, children of v are d v + 1 .. d v + d, served in that order), n
// segments of m_s bytes, g = g(m_s):
//   lambda = max over nodes v of  sum over the edges root -> v of (L + i g),  i = the child's
//            position (1..d) among its siblings: the first segment's latest arrival. In BFS order
//            the positions along the path to v are the base-d digits (+1) of v's offset in its
//            level, so a full level of depth D contributes D (L + d g) and the partial last level
//            D L + (D + S) g, with S the largest digit sum of an offset <= the last node's.
//   gamma  = max{c0 g, c1 g, o_r + (c1 - 1) g + o_s}: c0 = min(d, P - 1) children at the root,
//            c1 = min(d, P - 1 - d) at node 1, the fullest inner node (the c1 terms only when
//            c1 >= 1).
//   T      = lambda + (n - 1) gamma.
// For a full binary tree (P = 2^h - 1 >= 7) this is paper 002's binary row; for d >= P - 1 it
// is paper 000's flat tree. (Exact in the event simulator for unsegmented messages; with
// segments, exact for full trees and within a fraction of a percent otherwise — see
// tests/sim/test_event_sim.cpp.)
//
// Splitted-binary (algorithms/bcast/bcast_splitted_binary.cpp): halves of m_L = ceil(m / 2)
// bytes in n_h = ceil(m_L / m_s) segments of m_h = min(m_s, m_L) bytes, g = g(m_h); side trees
// of nl = floor(P / 2) and nr = P - 1 - nl nodes hanging below the root's first (left) and
// second (right) send:
//   T_pair = max{L + 2 g + lambda_2(nr), L + g + lambda_2(nl')} + (n_h - 1) gamma + L + n_h g,
//            gamma = max{2 g, side roots' cycle} (the root alternates the halves: 2 g per k):
//            the paired node finishing its tree phase last then sends its whole half to its
//            partner, n_h messages g apart. nl' = nl - 1 when the last left node is unpaired
//            (nl > nr); its parent's last send to it then also ends a paired tree phase.
//   unpaired left node: its right half comes from the root after the root's 2 n_h tree-phase
//            sends, the last at L + 3 n_h g, and is received once its own tree phase is over
//            (o_r per message if it came first). T is the larger.
//   P = 2: the root sends both halves to rank 1: L + 2 n_h g.
// Exact in the event simulator when a half is a whole number of segments and the exchange does
// not overlap a neighbour's tree phase; otherwise within a few percent (a partner's early
// exchange messages queue at the incoming port with the tree phase's: the simulator's messages
// are eager, see tests/sim/test_event_sim.cpp).
//
// References: [P000] §2, §3.1; [P002] §3, Table 2 (algorithms/REFERENCES.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "closed_forms_detail.hpp"

namespace gridcoll::model {

namespace {

// lambda of a BFS d-ary tree over n nodes (see the file comment); d >= 1.
double kary_lambda(std::int64_t n, std::int64_t d, double L, double g) {
    if (n <= 1) return 0.0;
    if (d == 1) return static_cast<double>(n - 1) * (L + g);
    // Depth of the last node and the first index of its level.
    std::int64_t first = 1, width = d;  // level 1 starts at 1 and holds d nodes
    int depth = 1;
    while (n - 1 >= first + width) {
        first += width;
        width *= d;  // width <= d * n: no overflow for n, d < 2^31
        ++depth;
    }
    // Levels 1 .. depth - 1 are full; their deepest costs (depth - 1)(L + d g).
    double best = static_cast<double>(depth - 1) * (L + static_cast<double>(d) * g);
    // The last level holds offsets 0 .. X; the largest digit sum (depth base-d digits) of an
    // offset <= X: X itself, or X's prefix with one digit lowered and every later digit d - 1.
    const std::int64_t X = n - 1 - first;
    std::vector<std::int64_t> digits(static_cast<std::size_t>(depth));
    std::int64_t x = X;
    for (int i = depth - 1; i >= 0; --i) {
        digits[static_cast<std::size_t>(i)] = x % d;
        x /= d;
    }
    std::int64_t S = 0, prefix = 0;
    for (std::int64_t dg : digits) S += dg;
    for (int i = 0; i < depth; ++i) {
        const std::int64_t dg = digits[static_cast<std::size_t>(i)];
        if (dg > 0) S = std::max(S, prefix + dg - 1 + static_cast<std::int64_t>(depth - 1 - i) * (d - 1));
        prefix += dg;
    }
    best = std::max(best, depth * L + static_cast<double>(depth + S) * g);
    return best;
}

// Per-segment cycle of a node with c children (0: a leaf receives one message per g).
double node_cycle(std::int64_t c, double g, double os, double or_) {
    if (c <= 0) return g;
    return std::max(static_cast<double>(c) * g, or_ + static_cast<double>(c - 1) * g + os);
}

double kary_time(const PLogPParams& p, std::int64_t P, std::int64_t d, double n, double ms) {
    if (P <= 1) return 0.0;
    const double g = p.g(ms), os = p.os(ms), or_ = p.or_(ms);
    const std::int64_t c0 = std::min(d, P - 1), c1 = std::min(d, P - 1 - d);
    double gamma = static_cast<double>(c0) * g;
    if (c1 >= 1) gamma = std::max(gamma, node_cycle(c1, g, os, or_));
    return kary_lambda(P, d, p.L, g) + (n - 1) * gamma;
}

// Cost of the path from a BFS d-ary tree's root to its node x (local index): sum of L + i g.
double bfs_path(std::int64_t x, std::int64_t d, double L, double g) {
    double c = 0;
    for (; x > 0; x = (x - 1) / d) c += L + static_cast<double>((x - 1) % d + 1) * g;
    return c;
}

double splitted_binary_time(const PLogPParams& p, std::int64_t P, double bytes, double segment) {
    if (P <= 1 || bytes <= 0) return 0.0;
    const double mL = std::ceil(bytes / 2);
    const double mh = segment > 0 && segment < mL ? segment : mL;
    const double nh = std::ceil(mL / mh);
    const double g = p.g(mh), os = p.os(mh), or_ = p.or_(mh), L = p.L;
    if (P == 2) return L + 2 * nh * g;
    const std::int64_t nl = P / 2, nr = P - 1 - nl;
    const bool unpaired = nl > nr;
    double gamma = 2 * g;  // the root: segment k of both halves per cycle
    if (nl >= 2) gamma = std::max(gamma, node_cycle(std::min<std::int64_t>(2, nl - 1), g, os, or_));
    const double more = (nh - 1) * gamma;
    // Tree phase of the paired nodes: the last arrival among them (a leaf's end), and, when the
    // unpaired node is the last left node, its parent q's last send to it.
    double paired = std::max(L + 2 * g + kary_lambda(nr, 2, L, g), L + g + kary_lambda(nl - (unpaired ? 1 : 0), 2, L, g));
    if (unpaired && nl >= 2) {
        const std::int64_t j = nl - 1, q = (j - 1) / 2;
        paired = std::max(paired, L + g + bfs_path(q, 2, L, g) + static_cast<double>((j - 1) % 2 + 1) * g);
    }
    double T = paired + more + L + nh * g;  // then the whole half to the partner
    if (unpaired) {
        // Its own half, then the right half from the root after the root's 2 n_h tree sends
        // (the receives wait for its tree phase: or each if the data came first).
        const double own = L + g + kary_lambda(nl, 2, L, g) + more;
        T = std::max(T, std::max(L + 3 * nh * g, own + nh * or_));
    }
    return T;
}

}  // namespace

std::optional<double> predict_corrected(Collective coll, std::string_view algorithm, int P, double bytes,
                                        double segment, int fanout, const LevelParams& level) {
    if (coll != Collective::Bcast) return std::nullopt;
    if (algorithm != "binary" && algorithm != "kary" && algorithm != "splitted-binary")
        return predict(Model::PLogP, coll, algorithm, P, bytes, segment, fanout, level);
    // predict() validates the arguments (P, sizes, fan-out) and the level's parameters.
    const auto published = predict(Model::PLogP, coll, algorithm, P, bytes, segment, fanout, level);
    if (!published || P <= 1) return published;
    if (bytes <= 0) return 0.0;  // the registry's broadcasts send nothing
    const PLogPParams& p = detail::plogp_of(level);
    if (algorithm == "splitted-binary") return splitted_binary_time(p, P, bytes, segment);
    const double n = segment > 0 && segment < bytes ? std::ceil(bytes / segment) : 1.0;
    const double ms = segment > 0 && segment < bytes ? segment : bytes;
    return kary_time(p, P, algorithm == "binary" ? 2 : fanout, n, ms);
}

}  // namespace gridcoll::model
