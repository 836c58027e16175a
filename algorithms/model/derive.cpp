// Derived model parameters: LogGP and Hockney from PLogP (paper 002 §3.1 and §6.1, Kielmann et
// al.'s logp_mpi conventions), PLogP from a link (latency, bandwidth). The formulas and their
// justification are in include/gridcoll/model/derive.hpp.
//
// References: [P002] §3.1, §6.1; [KBV00] (logp_mpi) (algorithms/REFERENCES.md).
#include "gridcoll/algorithms/model/derive.hpp"

#include "gridcoll/algorithms/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::model {

namespace {

// Slope of the last segment of a table (what SizeFunction extrapolates with); 0 below 2 points.
double last_slope(const SizeFunction& f) {
    const auto& p = f.points();
    if (p.size() < 2) return 0.0;
    const auto& [x0, y0] = p[p.size() - 2];
    const auto& [x1, y1] = p.back();
    return (y1 - y0) / (x1 - x0);
}

std::string num(double v) { return format_number(v); }

}  // namespace

LogGPParams loggp_from_plogp(const PLogPParams& p) {
    LogGPParams r;
    const double os1 = p.os(1.0), or1 = p.or_(1.0), g1 = p.g(1.0);
    r.o = (os1 + or1) / 2.0;
    r.g = g1;
    r.G = last_slope(p.g);
    r.L = std::max(0.0, p.L + g1 - os1 - or1);
    return r;
}

HockneyParams hockney_from_plogp(const PLogPParams& p) {
    HockneyParams h;
    const double G = last_slope(p.g);
    h.beta = SizeFunction::constant(G);
    // alpha(m) = L + g(m) - G m is piecewise linear on g's breakpoints; below g's first point g
    // is constant, so alpha falls linearly there: add the point at 0 bytes.
    std::vector<std::pair<double, double>> pts;
    const auto& gp = p.g.points();
    if (gp.empty()) {
        pts.emplace_back(0.0, p.L);
    } else {
        if (gp.front().first > 0) pts.emplace_back(0.0, p.L + gp.front().second);
        for (const auto& [x, y] : gp) pts.emplace_back(x, p.L + y - G * x);
    }
    h.alpha = SizeFunction(std::move(pts));
    return h;
}

PLogPParams plogp_from_link(double latency, double bandwidth, double overhead) {
    if (!std::isfinite(latency) || latency < 0) throw Error("link latency must be >= 0 seconds, got " + num(latency));
    if (!std::isfinite(bandwidth) || bandwidth <= 0)
        throw Error("link bandwidth must be > 0 bytes/s, got " + num(bandwidth));
    if (!std::isfinite(overhead) || overhead < 0)
        throw Error("link overhead must be >= 0 seconds, got " + num(overhead));
    PLogPParams p;
    p.L = latency;
    p.os = SizeFunction::constant(overhead);
    p.or_ = SizeFunction::constant(overhead);
    p.g = SizeFunction::affine(overhead, 1.0 / bandwidth);
    return p;
}

LevelParams level_from_link(std::string name, double latency, double bandwidth, double overhead) {
    LevelParams l;
    l.level = std::move(name);
    l.plogp = plogp_from_link(latency, bandwidth, overhead);
    complete_from_plogp(l);
    return l;
}

void complete_from_plogp(LevelParams& level) {
    if (!level.plogp) return;
    if (!level.loggp) level.loggp = loggp_from_plogp(*level.plogp);
    if (!level.hockney) level.hockney = hockney_from_plogp(*level.plogp);
}

}  // namespace gridcoll::model
