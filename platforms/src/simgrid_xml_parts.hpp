// The pieces of the SimGrid XML generator (simgrid_xml.cpp): names, escaping, link
// declarations and hops, the checks of a zone's numbers, and MemberNet, the paths between the
// members of a mesh, ring or explicit network (simgrid_member_net.cpp). Internal to platforms/.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform::xml {


// Bandwidth of a link that must never be a bottleneck (a gateway without a bandwidth limit, or
// the edge of an explicit zone without a `link`): at least this, and 1000 times the fastest
// link of the platform.
inline constexpr double kUnlimitedBps = 1e12;
// Link references in all routes of one zone above which the description is refused.
inline constexpr long long kMaxLinkRefs = 4'000'000;

// 15 significant digits: exact enough (1e-15), and 5.05e-05 rather than 5.0499999999999994e-05.
inline std::string num(double v) { return format_number(v, 15); }

inline std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

// Text safe inside an XML comment: no "--", not ending with '-'.
inline std::string comment(std::string s) {
    for (std::size_t i = 0; (i = s.find("--", i)) != std::string::npos;) s.replace(i, 2, "- -");
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    if (!s.empty() && s.back() == '-') s += ' ';
    return s;
}

inline std::string where(const Zone& z) {
    std::string s = z.loc.file.empty() ? std::string("platform") : z.loc.file;
    if (z.loc.line > 0) s += ":" + std::to_string(z.loc.line) + ":" + std::to_string(z.loc.column);
    return s + ": zone \"" + z.name + "\": ";
}

enum class Dir { None, Up, Down };

struct Hop {
    std::string link;
    Dir dir = Dir::None;
};
using Path = std::vector<Hop>;

struct LinkDecl {
    std::string id;
    double latency_s;
    double bandwidth_Bps;
    const char* policy;  // SPLITDUPLEX, SHARED, FATPIPE
};

inline bool is_cluster(const Zone& z) {
    return z.is_leaf() && (z.network == Interconnect::Switched || z.network == Interconnect::Star ||
                           z.network == Interconnect::Shared);
}

// The netpoint through which a zone is left (gw_src in its parent) and entered (gw_dst).
inline std::string gw_out(const Zone& z) {
    return z.is_leaf() && z.network == Interconnect::Ring ? z.name + ":router-out" : z.name + ":router";
}
inline std::string gw_in(const Zone& z) {
    return z.is_leaf() && z.network == Interconnect::Ring ? z.name + ":router-in" : z.name + ":router";
}

inline double check_bw(const Zone& z, double bw, const std::string& what) {
    if (!(bw > 0) || !std::isfinite(bw))
        throw Error(where(z) + what + " bandwidth must be > 0 (got " + num(bw) + " B/s)");
    return bw;
}
inline double check_lat(const Zone& z, double lat, const std::string& what) {
    if (!(lat >= 0) || !std::isfinite(lat))
        throw Error(where(z) + what + " latency must be >= 0 (got " + num(lat) + " s)");
    return lat;
}

// Paths between the members of a mesh, ring or explicit network (members 0..n-1, named), and
// the links they use. Member-to-member only; the edge links are added by the caller.
class MemberNet {
public:
    MemberNet(const Zone& z, std::vector<std::string> names);

    const std::vector<LinkDecl>& links() const { return links_; }

    // The links from member i to member j (i != j), in order.
    Path path(int i, int j) const;
    // The members link k joins: Dir::Up runs from the first to the second.
    std::pair<int, int> ends(std::size_t k) const { return ends_[k]; }

private:
    int index_of(const std::string& name) const;
    std::size_t idx(int a, int b) const;

    // Least latency, then widest bottleneck; latencies within a relative 1e-9 count as equal.
    static bool better(double lat, double bw, double best_lat, double best_bw);

    // Dijkstra from every member, remembering for each destination the last link used.
    void shortest_paths();

    const Zone& z_;
    std::vector<std::string> names_;
    std::vector<LinkDecl> links_;
    std::vector<std::pair<int, int>> ends_;  // the members each link joins (Up: first to second)
    std::vector<int> via_;                   // explicit: [src * n + dst] = last link of the path
};

}  // namespace gridcoll::platform::xml
