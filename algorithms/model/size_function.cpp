// SizeFunction: a model parameter as a function of message size (paper 002 §3.1: "We altered
// Hockney model such that alpha and beta are functions of message size"; "In [PLogP] sender and
// receiver overheads and gap per message depend on the message size"; paper 000 §2.1: os(m),
// or(m), g(m) "are defined as functions of the message size m" and taken from measurements).
//
// A table of points (bytes, value), evaluated by linear interpolation between neighbours,
// constant below the first point, and linear extrapolation through the last two points beyond
// the last one (one point: constant everywhere; no point: 0). Evaluation allocates nothing and
// costs one binary search (the optimiser calls it per candidate segment size).
//
// References: [P002] §3.1; [P000] §2.1 (algorithms/REFERENCES.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "gridcoll/algorithms/error.hpp"

#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

namespace {

// 1 MiB: the abscissa of the second point of an affine function (any positive value works;
// a large one keeps the slope (y1 - y0) / x1 accurate when at_zero >> per_byte).
constexpr double kAffineX1 = 1048576.0;

std::string show(double v) { return format_number(v); }

}  // namespace

SizeFunction::SizeFunction(std::vector<std::pair<double, double>> points) : pts_(std::move(points)) {
    for (std::size_t i = 0; i < pts_.size(); ++i) {
        const auto [x, y] = pts_[i];
        if (!std::isfinite(x) || !std::isfinite(y))
            throw Error("size function point " + std::to_string(i) + " is not finite");
        if (x < 0) throw Error("size function point " + std::to_string(i) + ": negative size " + show(x));
        if (i > 0 && !(x > pts_[i - 1].first))
            throw Error("size function point " + std::to_string(i) + ": sizes must increase strictly (" +
                        show(pts_[i - 1].first) + " then " + show(x) + ")");
    }
}

SizeFunction SizeFunction::constant(double v) { return SizeFunction({{0.0, v}}); }

SizeFunction SizeFunction::affine(double at_zero, double per_byte) {
    return SizeFunction({{0.0, at_zero}, {kAffineX1, at_zero + per_byte * kAffineX1}});
}

double SizeFunction::operator()(double bytes) const {
    const std::size_t n = pts_.size();
    if (n == 0) return 0.0;
    if (n == 1 || bytes <= pts_.front().first) return pts_.front().second;
    // First point strictly beyond `bytes`; the segment is [it - 1, it].
    auto it = std::upper_bound(pts_.begin(), pts_.end(), bytes,
                               [](double b, const std::pair<double, double>& p) { return b < p.first; });
    if (it == pts_.end()) it = pts_.end() - 1;  // beyond the last point: extrapolate the last segment
    const auto& [x1, y1] = *it;
    const auto& [x0, y0] = *(it - 1);
    return y0 + (bytes - x0) * (y1 - y0) / (x1 - x0);
}

}  // namespace gridcoll::model
