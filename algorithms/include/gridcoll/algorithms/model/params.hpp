// Point-to-point model parameters (paper 002 §3, paper 000 §2): Hockney, LogP/LogGP, PLogP,
// with size-dependent parameters as piecewise-linear tables over message size, one set per
// network level of a Topology.
//
//   Hockney:  T(m) = alpha(m) + m * beta(m)
//   LogGP:    T(m) = L + 2o + (m - 1) G;  a sender may start a new message after g (+ (m-1)G)
//   PLogP:    a message of m bytes sent at t occupies the sender's CPU for os(m) and its
//             network for g(m) (next send not before t + g(m)); it is received at
//             t + L + g(m) (r(m) = L + g(m)); the receiver's CPU is busy for or(m).
//             g(m) >= os(m), g(m) >= or(m).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gridcoll::model {

// A function of message size: linear interpolation between points (bytes, value), constant
// below the first point, linear extrapolation through the last two beyond the last.
class SizeFunction {
public:
    SizeFunction() = default;
    explicit SizeFunction(std::vector<std::pair<double, double>> points);  // sorted by bytes; throws Error if not
    static SizeFunction constant(double v);
    static SizeFunction affine(double at_zero, double per_byte);  // v(m) = at_zero + per_byte * m
    double operator()(double bytes) const;
    const std::vector<std::pair<double, double>>& points() const { return pts_; }
    bool empty() const { return pts_.empty(); }

private:
    std::vector<std::pair<double, double>> pts_;
};

struct HockneyParams {
    SizeFunction alpha;  // seconds
    SizeFunction beta;   // seconds per byte
    double time(double m) const { return alpha(m) + m * beta(m); }
};

struct LogGPParams {
    double L = 0, o = 0, g = 0, G = 0;  // seconds, G in seconds per byte
};

struct PLogPParams {
    double L = 0;     // end-to-end latency
    SizeFunction os;  // send overhead
    SizeFunction or_; // receive overhead ("or" is a C++ keyword)
    SizeFunction g;   // gap
    double s(double m) const { return g(m); }      // sender ready again (paper 000)
    double r(double m) const { return L + g(m); }  // receiver has the message
};

// All parameters of one network level (named like the Topology's levels); any may be absent.
struct LevelParams {
    std::string level;
    std::optional<HockneyParams> hockney;
    std::optional<LogGPParams> loggp;
    std::optional<PLogPParams> plogp;
};

// The parameters of one pair of clusters at a level whose links differ (Topology::pair_link:
// an explicit WAN): clusters a and b (ids at level + 1, either direction).
struct PairLevelParams {
    int level = 0, a = 0, b = 0;
    LevelParams params;
};

// The parameters of one cluster of a level whose clusters differ (Topology::cluster_link).
struct ClusterLevelParams {
    int level = 0, id = 0;
    LevelParams params;
};

struct ParamSet {
    std::vector<LevelParams> levels;     // index = Topology level
    double gamma = 0;                    // computation time per byte of a reduction (paper 002 §3.2)
    std::string origin;                  // how they were obtained (measured / fitted / given)
    std::vector<PairLevelParams> pairs;  // from a platform's pair links (a parameter file has none)
    std::vector<ClusterLevelParams> clusters;  // from its cluster links (likewise)
};

}  // namespace gridcoll::model
