// Route inspection for the SimGrid generator's tests (see gridcoll/route_check.hpp).
//
// expected_route() reads FORMAT.md's rules straight off the description: it knows nothing of
// clusters, routers, uplinks or the other devices simgrid_xml() builds, so that a test comparing
// it with SimGrid's routes checks the generator rather than restating it.
#include "gridcoll/platforms/route_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::platform {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- the expected cost, from FORMAT.md ----

struct Located {
    std::vector<const Zone*> path;  // root .. leaf
    int node = 0;
};

bool find_leaf(const Zone& z, const std::string& leaf, std::vector<const Zone*>& path) {
    path.push_back(&z);
    if (z.is_leaf()) {
        if (z.name == leaf) return true;
    } else {
        for (const Zone& c : z.children)
            if (find_leaf(c, leaf, path)) return true;
    }
    path.pop_back();
    return false;
}

// Host "<leaf>-<i>" (platform.hpp): its leaf's zone path and its index.
Located locate(const Platform& p, const std::string& host) {
    const auto bad = [&] { return Error("no host \"" + host + "\" in platform \"" + p.name + "\""); };
    const auto dash = host.rfind('-');
    if (dash == std::string::npos || dash + 1 == host.size() || host.size() - dash > 10) throw bad();
    const std::string idx = host.substr(dash + 1);
    if (!std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; })) throw bad();
    Located at;
    at.node = std::stoi(idx);
    if (!find_leaf(p.root, host.substr(0, dash), at.path) || at.node >= at.path.back()->nodes) throw bad();
    return at;
}

int members(const Zone& z) { return z.is_leaf() ? z.nodes : static_cast<int>(z.children.size()); }

std::string member_name(const Zone& z, int i) {
    return z.is_leaf() ? z.name + "-" + std::to_string(i) : z.children[static_cast<std::size_t>(i)].name;
}

struct LatBw {
    double lat = 0;
    double bw = kInf;
};

// Least latency, then the widest; latencies within a relative 1e-9 count as equal.
bool better(const LatBw& a, const LatBw& b) {
    const double tol = 1e-9 * std::max(std::abs(a.lat), std::abs(b.lat));
    if (a.lat < b.lat - tol) return true;
    if (a.lat > b.lat + tol) return false;
    return a.bw > b.bw;
}

// Explicit links: best path between members i and j (Floyd-Warshall over the listed links).
LatBw explicit_path(const Zone& z, int i, int j) {
    const int n = members(z);
    std::map<std::string, int> index;
    for (int m = 0; m < n; ++m) index[member_name(z, m)] = m;
    const LatBw none{kInf, 0};
    std::vector<std::vector<LatBw>> d(static_cast<std::size_t>(n),
                                      std::vector<LatBw>(static_cast<std::size_t>(n), none));
    for (int m = 0; m < n; ++m) d[m][m] = LatBw{0, kInf};
    for (const ExplicitLink& l : z.links) {
        const auto a = index.find(l.a), b = index.find(l.b);
        if (a == index.end() || b == index.end())
            throw Error("zone \"" + z.name + "\": link " + l.a + " - " + l.b + " names an unknown member");
        const LatBw c{l.link.latency_s, l.link.bandwidth_Bps};
        if (d[a->second][b->second].lat == kInf || better(c, d[a->second][b->second])) d[a->second][b->second] = c;
        if (d[b->second][a->second].lat == kInf || better(c, d[b->second][a->second])) d[b->second][a->second] = c;
    }
    for (int k = 0; k < n; ++k)
        for (int u = 0; u < n; ++u) {
            if (d[u][k].lat == kInf) continue;
            for (int v = 0; v < n; ++v) {
                if (d[k][v].lat == kInf) continue;
                const LatBw c{d[u][k].lat + d[k][v].lat, std::min(d[u][k].bw, d[k][v].bw)};
                if (d[u][v].lat == kInf || better(c, d[u][v])) d[u][v] = c;
            }
        }
    if (d[i][j].lat == kInf)
        throw Error("zone \"" + z.name + "\": no path from " + member_name(z, i) + " to " + member_name(z, j));
    return d[i][j];
}

// FORMAT.md's table: member i to member j through zone z's network.
LatBw member_to_member(const Zone& z, int i, int j) {
    const double L = z.link.latency_s, B = z.link.bandwidth_Bps;
    switch (z.network) {
        case Interconnect::Switched:
            if (z.backbone) return {L + z.backbone->latency_s, std::min(B, z.backbone->bandwidth_Bps)};
            return {L, B};
        case Interconnect::Star:
        case Interconnect::Shared:
        case Interconnect::Mesh:
            return {L, B};
        case Interconnect::Ring: {
            const int n = members(z), d = std::abs(i - j);
            return {std::min(d, n - d) * L, B};
        }
        case Interconnect::Explicit:
            return explicit_path(z, i, j);
    }
    return {};
}

// From a member to the zone's edge (or back): half the member-to-member latency.
LatBw edge_crossing(const Zone& z) {
    switch (z.network) {
        case Interconnect::Switched:
        case Interconnect::Star:
        case Interconnect::Shared:
        case Interconnect::Mesh: {
            const LatBw m = member_to_member(z, 0, 1 % std::max(members(z), 1));
            return {m.lat / 2, m.bw};
        }
        case Interconnect::Ring:
            return {z.link.latency_s / 2, z.link.bandwidth_Bps};
        case Interconnect::Explicit:
            return {z.link.latency_s / 2, z.link.bandwidth_Bps > 0 ? z.link.bandwidth_Bps : kInf};
    }
    return {};
}

void add(RouteCost& r, const LatBw& c, const std::string& what) {
    r.latency_s += c.lat;
    r.bandwidth_Bps = std::min(r.bandwidth_Bps, c.bw);
    r.parts.push_back(what);
}

// The way from a node up to the edge of path[from] (path[from..] crossed from inside out).
void climb(RouteCost& r, const std::vector<const Zone*>& path, std::size_t from, bool leaving) {
    std::vector<std::pair<LatBw, std::string>> legs;
    for (std::size_t t = path.size(); t-- > from;) {
        const Zone& y = *path[t];
        legs.push_back({edge_crossing(y), y.name + " edge"});
        if (y.gateway)
            legs.push_back({{y.gateway->overhead_s, y.gateway->bandwidth_Bps > 0 ? y.gateway->bandwidth_Bps : kInf},
                            y.name + " gateway"});
    }
    if (!leaving) std::reverse(legs.begin(), legs.end());
    for (const auto& [c, what] : legs) add(r, c, what);
}

// ---- sampling ----

void preorder(const Zone& z, std::vector<const Zone*>& out) {
    out.push_back(&z);
    for (const Zone& c : z.children) preorder(c, out);
}

// A host of zone z: which = 0 first, 1 last, 2 middle (at every level down).
std::string host_in(const Zone& z, int which) {
    const auto pick = [which](int n) { return which == 0 ? 0 : which == 1 ? n - 1 : n / 2; };
    const Zone* y = &z;
    while (!y->is_leaf()) y = &y->children[static_cast<std::size_t>(pick(static_cast<int>(y->children.size())))];
    return y->name + "-" + std::to_string(pick(y->nodes));
}

std::string member_host(const Zone& z, int i, int which) {
    return z.is_leaf() ? z.name + "-" + std::to_string(i) : host_in(z.children[static_cast<std::size_t>(i)], which);
}

}  // namespace

RouteCost expected_route(const Platform& p, const std::string& a, const std::string& b) {
    const Located la = locate(p, a), lb = locate(p, b);
    RouteCost r;
    r.bandwidth_Bps = kInf;
    if (a == b) {
        const Zone& leaf = *la.path.back();
        add(r, {leaf.core_link.latency_s, leaf.core_link.bandwidth_Bps}, leaf.name + " core_link");
        return r;
    }
    std::size_t k = 0;  // deepest common zone
    while (k + 1 < la.path.size() && k + 1 < lb.path.size() && la.path[k + 1] == lb.path[k + 1]) ++k;
    const Zone& z = *la.path[k];
    if (z.is_leaf()) {
        add(r, member_to_member(z, la.node, lb.node), z.name + " network");
        return r;
    }
    const auto index = [&](const Zone* c) { return static_cast<int>(c - z.children.data()); };
    climb(r, la.path, k + 1, true);
    add(r, member_to_member(z, index(la.path[k + 1]), index(lb.path[k + 1])), z.name + " network");
    climb(r, lb.path, k + 1, false);
    return r;
}

std::vector<RouteSample> sample_route_pairs(const Platform& p, int per_zone) {
    std::vector<const Zone*> all;
    preorder(p.root, all);
    std::vector<std::string> level_order;
    std::map<std::string, std::vector<const Zone*>> by_level;
    for (const Zone* z : all) {
        if (!by_level.count(z->level)) level_order.push_back(z->level);
        by_level[z->level].push_back(z);
    }
    std::vector<RouteSample> out;
    std::set<HostPair> seen;
    std::vector<const Zone*> leaves;
    for (const std::string& level : level_order) {
        const auto& zs = by_level[level];
        const std::size_t n = zs.size();
        std::vector<std::size_t> pick = {0, n - 1, n / 3, 2 * n / 3};
        std::set<Interconnect> kinds;
        for (std::size_t i : pick) kinds.insert(zs[i]->network);
        for (std::size_t i = 0; i < n; ++i)
            if (kinds.insert(zs[i]->network).second) pick.push_back(i);
        std::sort(pick.begin(), pick.end());
        pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
        for (std::size_t zi : pick) {
            const Zone& z = *zs[zi];
            if (z.is_leaf()) leaves.push_back(&z);
            const int k = members(z);
            if (k < 2) continue;
            std::vector<std::pair<int, int>> cands;
            const bool all_pairs = (z.network == Interconnect::Ring || z.network == Interconnect::Explicit) && k <= 8;
            if (all_pairs) {
                for (int i = 0; i < k; ++i)
                    for (int j = 0; j < k; ++j)
                        if (i != j) cands.push_back({i, j});
            } else {
                for (auto c :
                     std::vector<std::pair<int, int>>{{0, 1}, {k - 1, 0}, {0, k / 2}, {k / 2, k - 1}, {k - 1, k / 2}})
                    if (c.first != c.second && std::find(cands.begin(), cands.end(), c) == cands.end())
                        cands.push_back(c);
            }
            const std::size_t want =
                std::max<std::size_t>(static_cast<std::size_t>(std::max(per_zone, 0)), all_pairs ? cands.size() : 0);
            std::size_t got = 0;
            for (int round = 0; round < 3 && got < want; ++round)
                for (const auto& [i, j] : cands) {
                    if (got >= want) break;
                    HostPair hp{member_host(z, i, round), member_host(z, j, (round + 1) % 3)};
                    if (hp.first == hp.second || !seen.insert(hp).second) continue;
                    out.push_back({hp, z.name, z.level});
                    ++got;
                }
        }
    }
    for (const Zone* leaf : leaves) {
        const std::string h = leaf->name + "-0";
        out.push_back({{h, h}, leaf->name, "core"});
    }
    return out;
}

SimgridPlatform measure_simgrid_platform(int* argc, char** argv, const std::string& xml_path,
                                         const std::vector<HostPair>& pairs) {
    simgrid::s4u::Engine e(argc, argv);
    e.load_platform(xml_path);
    e.seal_platform();
    SimgridPlatform out;
    for (const auto& [a, b] : pairs) {
        const simgrid::s4u::Host* ha = simgrid::s4u::Host::by_name_or_null(a);
        const simgrid::s4u::Host* hb = simgrid::s4u::Host::by_name_or_null(b);
        if (!ha || !hb) throw Error(xml_path + ": no host \"" + (ha ? b : a) + "\" in the SimGrid platform");
        std::vector<simgrid::s4u::Link*> links;
        double latency = 0;
        ha->route_to(hb, links, &latency);
        RouteCost r;
        r.latency_s = latency;
        r.bandwidth_Bps = links.empty() ? 0 : kInf;
        for (const simgrid::s4u::Link* l : links) {
            r.bandwidth_Bps = std::min(r.bandwidth_Bps, l->get_bandwidth());
            r.parts.push_back(l->get_name());
        }
        out.routes.push_back(std::move(r));
    }
    for (const simgrid::s4u::Host* h : e.get_all_hosts())
        out.hosts.push_back({h->get_name(), h->get_speed(), h->get_core_count()});
    std::sort(out.hosts.begin(), out.hosts.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
    return out;
}

}  // namespace gridcoll::platform
