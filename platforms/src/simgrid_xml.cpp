// SimGrid platform (XML version 4.1, loadable by SimGrid 3.32) from a platform description.
//
// Every zone of the description becomes a SimGrid zone of the same name, nested the same way,
// so that routes cost exactly what platforms/FORMAT.md says (route_check.cpp verifies it with
// SimGrid's own router against an independent reading of FORMAT.md):
//
//   leaf, switched/star/shared   <cluster>: one SPLITDUPLEX link per node to the switch with
//                                latency L/2 (L = member-to-member latency), so node-to-node is
//                                L and node-to-edge (the cluster's router) L/2. Switched with a
//                                backbone: a SHARED backbone link of the backbone's bandwidth,
//                                its latency folded into the node links ((L + Lbb)/2 each) so that
//                                the edge is still half the member-to-member latency. Shared: a
//                                SHARED zero-latency backbone of the medium's bandwidth that all
//                                traffic crosses. O(nodes) links, no routes.
//   leaf, mesh / explicit        <zone routing="Full">: hosts, one link per pair (mesh) or per
//                                listed link (explicit, paths of least latency, then widest,
//                                precomputed here), one link "<host>:uplink" per node (L/2) to
//                                the zone's router.
//   leaf, ring                   <zone routing="Floyd">: one link per neighbour pair, routes only
//                                between neighbours (Floyd takes the fewest hops, which is the
//                                least latency on a uniform ring); the edge needs two routers, one
//                                only entered and one only left, so that no path between two
//                                nodes can shortcut through the edge. (SimGrid computes Floyd
//                                routes when the platform is sealed: an s4u program must call
//                                Engine::seal_platform() before Host::route_to; SMPI does.)
//   group                        <zone routing="Full">: the children, plus a child zone
//                                "<name>:edge" holding the router "<name>:router" (the group's
//                                gateway seen from its parent; SimGrid only routes between a
//                                zone's direct members, and zoneRoutes join zones), and a
//                                zoneRoute for every ordered pair of members: the member's link
//                                "<member>:uplink" (latency L/2) to the switch (switched/star/
//                                shared, backbone as above) or to the edge (mesh/ring/explicit,
//                                whose member-to-member paths are precomputed; a message passing
//                                through a member on a ring or explicit path does not cross that
//                                member's gateway: it does not enter the member's zone).
//   gateway of zone X            a SPLITDUPLEX link "X:gateway" (latency = overhead, bandwidth =
//                                the gateway's, unlimited if none) at the start of every route
//                                leaving X and the end of every route entering it, in X's parent.
//                                The gateway node, if named, is only recorded (<prop>): costs do
//                                not depend on it (FORMAT.md).
//   core_link                    every host's loopback (the cluster's loopback_bw/loopback_lat,
//                                or a FATPIPE "<host>:loopback" link routed from the host to itself).
//
// Every zone carries <prop id="level" value="..."/> (read by topology_from_simgrid). Names this
// file invents contain ':', which zone and host names cannot (the loader allows letters, digits,
// '.', '_' and '-'), so they never collide with the description's. Every route is written in
// both directions explicitly (symmetrical="NO"); every link is declared before the first route
// using it (SimGrid's parser requires it). Big leaves stay small: a cluster is O(1) XML whatever
// its nodes; only mesh, explicit (O(nodes^2) routes) and ring (Floyd: O(nodes^3) work when
// SimGrid seals the zone) grow faster, and a zone whose routes would list more than
// kMaxLinkRefs links is an error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"

#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform {

namespace {

// Bandwidth of a link that must never be a bottleneck (a gateway without a bandwidth limit, or
// the edge of an explicit zone without a `link`): at least this, and 1000 times the fastest
// link of the platform.
constexpr double kUnlimitedBps = 1e12;
// Link references in all routes of one zone above which the description is refused.
constexpr long long kMaxLinkRefs = 4'000'000;

// 15 significant digits: exact enough (1e-15), and 5.05e-05 rather than 5.0499999999999994e-05.
std::string num(double v) { return format_number(v, 15); }

std::string esc(const std::string& s) {
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
std::string comment(std::string s) {
    for (std::size_t i = 0; (i = s.find("--", i)) != std::string::npos;) s.replace(i, 2, "- -");
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    if (!s.empty() && s.back() == '-') s += ' ';
    return s;
}

std::string where(const Zone& z) {
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

bool is_cluster(const Zone& z) {
    return z.is_leaf() && (z.network == Interconnect::Switched || z.network == Interconnect::Star ||
                           z.network == Interconnect::Shared);
}

// The netpoint through which a zone is left (gw_src in its parent) and entered (gw_dst).
std::string gw_out(const Zone& z) {
    return z.is_leaf() && z.network == Interconnect::Ring ? z.name + ":router-out" : z.name + ":router";
}
std::string gw_in(const Zone& z) {
    return z.is_leaf() && z.network == Interconnect::Ring ? z.name + ":router-in" : z.name + ":router";
}

double check_bw(const Zone& z, double bw, const std::string& what) {
    if (!(bw > 0) || !std::isfinite(bw))
        throw Error(where(z) + what + " bandwidth must be > 0 (got " + num(bw) + " B/s)");
    return bw;
}
double check_lat(const Zone& z, double lat, const std::string& what) {
    if (!(lat >= 0) || !std::isfinite(lat))
        throw Error(where(z) + what + " latency must be >= 0 (got " + num(lat) + " s)");
    return lat;
}

// Paths between the members of a mesh, ring or explicit network (members 0..n-1, named), and
// the links they use. Member-to-member only; the edge links are added by the caller.
class MemberNet {
public:
    MemberNet(const Zone& z, std::vector<std::string> names) : z_(z), names_(std::move(names)) {
        const int n = static_cast<int>(names_.size());
        const double lat = check_lat(z, z.link.latency_s, "link");
        switch (z.network) {
            case Interconnect::Mesh: {
                const double bw = check_bw(z, z.link.bandwidth_Bps, "link");
                for (int i = 0; i < n; ++i)
                    for (int j = i + 1; j < n; ++j)
                        links_.push_back({names_[i] + ":" + names_[j], lat, bw, "SPLITDUPLEX"});
                break;
            }
            case Interconnect::Ring: {
                const double bw = check_bw(z, z.link.bandwidth_Bps, "link");
                const int count = n < 2 ? 0 : (n == 2 ? 1 : n);
                for (int k = 0; k < count; ++k)
                    links_.push_back({names_[k] + ":" + names_[(k + 1) % n], lat, bw, "SPLITDUPLEX"});
                break;
            }
            case Interconnect::Explicit: {
                std::set<std::string> used;
                for (std::size_t e = 0; e < z.links.size(); ++e) {
                    const ExplicitLink& l = z.links[e];
                    const auto ia = index_of(l.a), ib = index_of(l.b);
                    std::string id = l.a + ":" + l.b;
                    if (!used.insert(id).second) id += ":" + std::to_string(e);
                    used.insert(id);
                    links_.push_back({id, check_lat(z, l.link.latency_s, "link " + id),
                                      check_bw(z, l.link.bandwidth_Bps, "link " + id), "SPLITDUPLEX"});
                    ends_.push_back({ia, ib});
                }
                shortest_paths();
                break;
            }
            default:
                throw Error(where(z) + "internal: not a mesh, ring or explicit network");
        }
    }

    const std::vector<LinkDecl>& links() const { return links_; }

    // The links from member i to member j (i != j), in order.
    Path path(int i, int j) const {
        const int n = static_cast<int>(names_.size());
        Path p;
        switch (z_.network) {
            case Interconnect::Mesh: {
                const int a = std::min(i, j), b = std::max(i, j);
                p.push_back({names_[a] + ":" + names_[b], i < j ? Dir::Up : Dir::Down});
                break;
            }
            case Interconnect::Ring: {
                if (n == 2) {
                    p.push_back({links_[0].id, i < j ? Dir::Up : Dir::Down});
                    break;
                }
                const int fwd = ((j - i) % n + n) % n;
                if (fwd <= n - fwd) {
                    for (int k = i; k != j; k = (k + 1) % n) p.push_back({links_[k].id, Dir::Up});
                } else {
                    for (int k = i; k != j; k = (k - 1 + n) % n) p.push_back({links_[(k - 1 + n) % n].id, Dir::Down});
                }
                break;
            }
            case Interconnect::Explicit: {
                std::vector<Hop> rev;
                for (int v = j; v != i;) {
                    const int e = via_[idx(i, v)];
                    if (e < 0) throw Error(where(z_) + "no path from \"" + names_[i] + "\" to \"" + names_[v] + "\"");
                    const bool forward = ends_[e].second == v;
                    rev.push_back({links_[e].id, forward ? Dir::Up : Dir::Down});
                    v = forward ? ends_[e].first : ends_[e].second;
                }
                p.assign(rev.rbegin(), rev.rend());
                break;
            }
            default:
                break;
        }
        return p;
    }

private:
    int index_of(const std::string& name) const {
        const auto it = std::find(names_.begin(), names_.end(), name);
        if (it == names_.end()) throw Error(where(z_) + "explicit link names \"" + name + "\", which is not a member");
        return static_cast<int>(it - names_.begin());
    }
    std::size_t idx(int a, int b) const {
        return static_cast<std::size_t>(a) * names_.size() + static_cast<std::size_t>(b);
    }

    // Least latency, then widest bottleneck; latencies within a relative 1e-9 count as equal.
    static bool better(double lat, double bw, double best_lat, double best_bw) {
        const double tol = 1e-9 * std::max(std::abs(lat), std::abs(best_lat));
        if (lat < best_lat - tol) return true;
        if (lat > best_lat + tol) return false;
        return bw > best_bw;
    }

    // Dijkstra from every member, remembering for each destination the last link used.
    void shortest_paths() {
        const int n = static_cast<int>(names_.size());
        const double inf = std::numeric_limits<double>::infinity();
        via_.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), -1);
        for (int s = 0; s < n; ++s) {
            std::vector<double> lat(static_cast<std::size_t>(n), inf), bw(static_cast<std::size_t>(n), 0);
            std::vector<bool> done(static_cast<std::size_t>(n), false);
            lat[s] = 0;
            bw[s] = inf;
            for (;;) {
                int u = -1;
                for (int v = 0; v < n; ++v)
                    if (!done[v] && lat[v] < inf && (u < 0 || better(lat[v], bw[v], lat[u], bw[u]))) u = v;
                if (u < 0) break;
                done[u] = true;
                for (std::size_t e = 0; e < ends_.size(); ++e) {
                    int v;
                    if (ends_[e].first == u)
                        v = ends_[e].second;
                    else if (ends_[e].second == u)
                        v = ends_[e].first;
                    else
                        continue;
                    if (done[v]) continue;
                    const double l = lat[u] + links_[e].latency_s, b = std::min(bw[u], links_[e].bandwidth_Bps);
                    if (lat[v] == inf || better(l, b, lat[v], bw[v])) {
                        lat[v] = l;
                        bw[v] = b;
                        via_[idx(s, v)] = static_cast<int>(e);
                    }
                }
            }
        }
    }

    const Zone& z_;
    std::vector<std::string> names_;
    std::vector<LinkDecl> links_;
    std::vector<std::pair<int, int>> ends_;  // explicit: the members each link joins
    std::vector<int> via_;                   // explicit: [src * n + dst] = last link of the path
};

class Generator {
public:
    std::string run(const Platform& p) {
        unlimited_ = std::max(kUnlimitedBps, 1e3 * max_bandwidth(p.root));
        out_ << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!--\n";
        out_ << "  "
             << comment("Generated by gridcoll from the platform description \"" + p.name + "\"" +
                        (p.file.empty() ? std::string() : " (" + p.file + ")") + ".")
             << "\n";
        if (!p.description.empty()) out_ << "  " << comment(p.description) << "\n";
        if (!p.source.empty()) out_ << "  Source: " << comment(p.source) << "\n";
        out_ << "  Structure (platforms/src/simgrid_xml.cpp): one zone per description zone; leaves of\n"
                "  switched/star/shared networks are <cluster>s (node links carry half the member-to-member\n"
                "  latency); X:uplink = member X's link to its parent's switch or edge (half its latency);\n"
                "  X:gateway = X's gateway (overhead, bandwidth); Z:backbone = switch or shared medium;\n"
                "  A:B = mesh, ring or explicit link; Z:edge / Z:router = zone Z's gateway router.\n-->\n";
        out_ << "<platform version=\"4.1\">\n";
        zone(p.root, 1, true);
        out_ << "</platform>\n";
        return out_.str();
    }

private:
    void line(int depth, const std::string& s) {
        out_ << std::string(static_cast<std::size_t>(2 * depth), ' ') << s << '\n';
    }

    void name(const Zone& z, const std::string& n) {
        if (!names_.insert(n).second) throw Error(where(z) + "the SimGrid name \"" + n + "\" is used twice");
    }

    // The zone's level, and its gateway node if it names one (a record for readers of the XML:
    // routes use the zone's router, as FORMAT.md's costs do not depend on the node).
    void props(const Zone& z, int depth) {
        line(depth, "<prop id=\"level\" value=\"" + esc(z.level) + "\"/>");
        if (z.gateway && !z.gateway->node.empty())
            line(depth, "<prop id=\"gateway_node\" value=\"" + esc(z.gateway->node) + "\"/>");
    }

    void link(int depth, const LinkDecl& l) {
        line(depth, "<link id=\"" + esc(l.id) + "\" bandwidth=\"" + num(l.bandwidth_Bps) + "Bps\" latency=\"" +
                        num(l.latency_s) + "s\" sharing_policy=\"" + l.policy + "\"/>");
    }

    // Refuses, before building anything, a mesh or explicit network whose routes alone (one
    // per ordered pair of members) would list more than kMaxLinkRefs links.
    static void check_size(const Zone& z, long long members) {
        if ((z.network == Interconnect::Mesh || z.network == Interconnect::Explicit) &&
            members * (members - 1) > kMaxLinkRefs)
            throw Error(where(z) + too_large());
    }
    static std::string too_large() {
        return "too large for SimGrid: its routes would list more than " + std::to_string(kMaxLinkRefs) +
               " links (a mesh, ring or explicit network of this many members); use a switched or star network "
               "for big clusters";
    }

    void route(const Zone& z, int depth, const std::string& src, const std::string& dst, const Path& path,
               const std::string* gw_src = nullptr, const std::string* gw_dst = nullptr) {
        if (path.empty()) throw Error(where(z) + "internal: empty route from " + src + " to " + dst);
        link_refs_ += static_cast<long long>(path.size());
        if (link_refs_ > kMaxLinkRefs) throw Error(where(z) + too_large());
        std::string s = gw_src ? "<zoneRoute" : "<route";
        s += " src=\"" + esc(src) + "\" dst=\"" + esc(dst) + "\"";
        if (gw_src) s += " gw_src=\"" + esc(*gw_src) + "\" gw_dst=\"" + esc(*gw_dst) + "\"";
        s += " symmetrical=\"NO\">";
        for (const Hop& h : path) {
            s += "<link_ctn id=\"" + esc(h.link) + "\"";
            if (h.dir == Dir::Up) s += " direction=\"UP\"";
            if (h.dir == Dir::Down) s += " direction=\"DOWN\"";
            s += "/>";
        }
        s += gw_src ? "</zoneRoute>" : "</route>";
        line(depth, s);
    }

    void zone(const Zone& z, int depth, bool root) {
        link_refs_ = 0;
        if (z.is_leaf()) {
            if (z.nodes < 1) throw Error(where(z) + "a leaf zone needs at least one node");
            if (z.cores < 1) throw Error(where(z) + "cores must be >= 1");
            if (!(z.speed_flops > 0)) throw Error(where(z) + "speed must be > 0");
            check_bw(z, z.core_link.bandwidth_Bps, "core_link");
            check_lat(z, z.core_link.latency_s, "core_link");
            name(z, z.name);
            for (int i = 0; i < z.nodes; ++i) name(z, z.name + "-" + std::to_string(i));
            if (is_cluster(z))
                cluster(z, depth);
            else
                host_zone(z, depth, root);
        } else {
            group(z, depth, root);
        }
    }

    void cluster(const Zone& z, int depth) {
        name(z, gw_out(z));
        const double L = check_lat(z, z.link.latency_s, "link");
        const double B = check_bw(z, z.link.bandwidth_Bps, "link");
        std::string s = "<cluster id=\"" + esc(z.name) + "\" prefix=\"" + esc(z.name) + "-\" suffix=\"\" radical=\"0-" +
                        std::to_string(z.nodes - 1) + "\" speed=\"" + num(z.speed_flops) + "f\" core=\"" +
                        std::to_string(z.cores) + "\"";
        double node_lat = L / 2;
        if (z.network == Interconnect::Switched && z.backbone) {
            const double bb_lat = check_lat(z, z.backbone->latency_s, "backbone");
            node_lat = (L + bb_lat) / 2;
            s += " bw=\"" + num(B) + "Bps\" lat=\"" + num(node_lat) + "s\" sharing_policy=\"SPLITDUPLEX\" bb_bw=\"" +
                 num(check_bw(z, z.backbone->bandwidth_Bps, "backbone")) +
                 "Bps\" bb_lat=\"0s\" bb_sharing_policy=\"SHARED\"";
        } else if (z.network == Interconnect::Shared) {
            s += " bw=\"" + num(B) + "Bps\" lat=\"" + num(node_lat) + "s\" sharing_policy=\"SPLITDUPLEX\" bb_bw=\"" +
                 num(B) + "Bps\" bb_lat=\"0s\" bb_sharing_policy=\"SHARED\"";
        } else {
            s += " bw=\"" + num(B) + "Bps\" lat=\"" + num(node_lat) + "s\" sharing_policy=\"SPLITDUPLEX\"";
        }
        s += " loopback_bw=\"" + num(z.core_link.bandwidth_Bps) + "Bps\" loopback_lat=\"" + num(z.core_link.latency_s) +
             "s\" router_id=\"" + esc(gw_out(z)) + "\">";
        line(depth, s);
        props(z, depth + 1);
        line(depth, "</cluster>");
    }

    // A leaf of a mesh, ring or explicit network: hosts, links and routes written out.
    void host_zone(const Zone& z, int depth, bool root) {
        const bool ring = z.network == Interconnect::Ring;
        check_size(z, z.nodes);
        line(depth, "<zone id=\"" + esc(z.name) + "\" routing=\"" + (ring ? "Floyd" : "Full") + "\">");
        props(z, depth + 1);
        std::vector<std::string> hosts;
        for (int i = 0; i < z.nodes; ++i) hosts.push_back(z.name + "-" + std::to_string(i));
        for (const auto& h : hosts)
            line(depth + 1, "<host id=\"" + esc(h) + "\" speed=\"" + num(z.speed_flops) + "f\" core=\"" +
                                std::to_string(z.cores) + "\"/>");
        if (!root) {
            name(z, gw_out(z));
            line(depth + 1, "<router id=\"" + esc(gw_out(z)) + "\"/>");
            if (gw_in(z) != gw_out(z)) {
                name(z, gw_in(z));
                line(depth + 1, "<router id=\"" + esc(gw_in(z)) + "\"/>");
            }
        }
        MemberNet net(z, hosts);
        for (const auto& h : hosts)
            link(depth + 1, {h + ":loopback", z.core_link.latency_s, z.core_link.bandwidth_Bps, "FATPIPE"});
        for (const auto& l : net.links()) link(depth + 1, l);
        if (!root)
            for (const auto& h : hosts) link(depth + 1, edge_link(z, h));
        const int n = z.nodes;
        for (int i = 0; i < n; ++i) route(z, depth + 1, hosts[i], hosts[i], {{hosts[i] + ":loopback", Dir::None}});
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                if (i == j) continue;
                if (ring && n > 2 && (j - i + n) % n != 1 && (i - j + n) % n != 1) continue;  // Floyd finds the rest
                route(z, depth + 1, hosts[i], hosts[j], net.path(i, j));
            }
        if (!root)
            for (int i = 0; i < n; ++i) {
                route(z, depth + 1, hosts[i], gw_out(z), {{hosts[i] + ":uplink", Dir::Up}});
                route(z, depth + 1, gw_in(z), hosts[i], {{hosts[i] + ":uplink", Dir::Down}});
            }
        line(depth, "</zone>");
    }

    // Member m's own link to the edge of a mesh, ring or explicit network: half its latency.
    LinkDecl edge_link(const Zone& z, const std::string& member) const {
        if (z.network == Interconnect::Explicit && !(z.link.bandwidth_Bps > 0))
            return {member + ":uplink", check_lat(z, z.link.latency_s, "link") / 2, unlimited_, "SPLITDUPLEX"};
        return {member + ":uplink", check_lat(z, z.link.latency_s, "link") / 2,
                check_bw(z, z.link.bandwidth_Bps, "link"), "SPLITDUPLEX"};
    }

    void group(const Zone& z, int depth, bool root) {
        name(z, z.name);
        check_size(z, static_cast<long long>(z.children.size()));
        line(depth, "<zone id=\"" + esc(z.name) + "\" routing=\"Full\">");
        props(z, depth + 1);
        for (const Zone& c : z.children) zone(c, depth + 1, false);
        link_refs_ = 0;
        const std::string edge_zone = z.name + ":edge", router = z.name + ":router";
        if (!root) {
            name(z, edge_zone);
            name(z, router);
            line(depth + 1, "<zone id=\"" + esc(edge_zone) + "\" routing=\"None\">");
            line(depth + 2, "<router id=\"" + esc(router) + "\"/>");
            line(depth + 1, "</zone>");
        }

        const auto& kids = z.children;
        const int n = static_cast<int>(kids.size());
        std::vector<std::string> names;
        for (const Zone& c : kids) names.push_back(c.name);

        // Links.
        for (const Zone& c : kids)
            if (c.gateway)
                link(depth + 1, {c.name + ":gateway", check_lat(c, c.gateway->overhead_s, "gateway overhead"),
                                 c.gateway->bandwidth_Bps > 0 ? c.gateway->bandwidth_Bps : unlimited_, "SPLITDUPLEX"});
        const bool switched =
            z.network == Interconnect::Switched || z.network == Interconnect::Star || z.network == Interconnect::Shared;
        bool backbone = false;
        std::unique_ptr<MemberNet> net;
        if (switched) {
            const double L = check_lat(z, z.link.latency_s, "link");
            const double B = check_bw(z, z.link.bandwidth_Bps, "link");
            double up_lat = L / 2;
            if (z.network == Interconnect::Switched && z.backbone) {
                up_lat = (L + check_lat(z, z.backbone->latency_s, "backbone")) / 2;
                link(depth + 1,
                     {z.name + ":backbone", 0, check_bw(z, z.backbone->bandwidth_Bps, "backbone"), "SHARED"});
                backbone = true;
            } else if (z.network == Interconnect::Shared) {
                link(depth + 1, {z.name + ":backbone", 0, B, "SHARED"});
                backbone = true;
            }
            for (const Zone& c : kids) link(depth + 1, {c.name + ":uplink", up_lat, B, "SPLITDUPLEX"});
        } else {
            net = std::make_unique<MemberNet>(z, names);
            for (const auto& l : net->links()) link(depth + 1, l);
            if (!root)
                for (const Zone& c : kids) link(depth + 1, edge_link(z, c.name));
        }

        // Routes between members i and j; -1 is the edge.
        const auto middle = [&](int i, int j) {
            Path p;
            if (switched) {
                if (i >= 0) p.push_back({names[i] + ":uplink", Dir::Up});
                if (backbone) p.push_back({z.name + ":backbone", Dir::None});
                if (j >= 0) p.push_back({names[j] + ":uplink", Dir::Down});
            } else if (i < 0) {
                p.push_back({names[j] + ":uplink", Dir::Down});
            } else if (j < 0) {
                p.push_back({names[i] + ":uplink", Dir::Up});
            } else {
                p = net->path(i, j);
            }
            return p;
        };
        const int first = root ? 0 : -1;
        for (int i = first; i < n; ++i)
            for (int j = first; j < n; ++j) {
                if (i == j) continue;
                Path p;
                if (i >= 0 && kids[i].gateway) p.push_back({names[i] + ":gateway", Dir::Up});
                for (auto& h : middle(i, j)) p.push_back(std::move(h));
                if (j >= 0 && kids[j].gateway) p.push_back({names[j] + ":gateway", Dir::Down});
                const std::string src = i >= 0 ? names[i] : edge_zone, dst = j >= 0 ? names[j] : edge_zone;
                const std::string gs = i >= 0 ? gw_out(kids[i]) : router, gd = j >= 0 ? gw_in(kids[j]) : router;
                route(z, depth + 1, src, dst, p, &gs, &gd);
            }
        line(depth, "</zone>");
    }

    static double max_bandwidth(const Zone& z) {
        double m = std::max(z.link.bandwidth_Bps, z.core_link.bandwidth_Bps);
        if (z.backbone) m = std::max(m, z.backbone->bandwidth_Bps);
        if (z.gateway) m = std::max(m, z.gateway->bandwidth_Bps);
        for (const auto& l : z.links) m = std::max(m, l.link.bandwidth_Bps);
        for (const auto& c : z.children) m = std::max(m, max_bandwidth(c));
        return std::isfinite(m) ? m : 0;
    }

    double unlimited_ = kUnlimitedBps;
    std::ostringstream out_;
    std::set<std::string> names_;  // netpoints: zones, hosts, routers
    long long link_refs_ = 0;
};

}  // namespace

std::string simgrid_xml(const Platform& p) {
    Generator g;
    return g.run(p);
}

}  // namespace gridcoll::platform
