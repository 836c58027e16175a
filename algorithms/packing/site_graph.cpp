#include "site_graph.hpp"

#include <limits>
#include <map>
#include <queue>

namespace gridcoll::detail {

namespace {

void finish_routes(SiteGraph& g) {
    g.route_lat.assign(g.routes.size(), 0.0);
    for (std::size_t k = 0; k < g.routes.size(); ++k)
        for (int l : g.routes[k]) g.route_lat[k] += g.lat[static_cast<std::size_t>(l)];
}

SiteGraph mesh_stand_in(const Topology& t, const Sites& sites, int level) {
    SiteGraph g;
    g.n = g.vertices = sites.count();
    g.routes.resize(static_cast<std::size_t>(g.n * g.n));
    const int wan = level - 1;
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b) {
            if (a == b) continue;
            std::optional<LevelLink> l;
            const int ra = sites.members[static_cast<std::size_t>(a)].front(), rb = sites.members[static_cast<std::size_t>(b)].front();
            if (wan >= 0 && t.depth(ra) > level && t.depth(rb) > level)
                l = t.pair_link(wan, t.cluster(ra, level), t.cluster(rb, level));
            else if (wan >= 0)
                l = t.link(wan);
            const double bw = l && l->bandwidth_Bps > 0 ? l->bandwidth_Bps : 1.0;
            g.routes[static_cast<std::size_t>(a * g.n + b)] = {g.links()};
            g.cap.push_back(bw);
            g.lat.push_back(l ? l->latency_s : 0.0);
            g.ends.emplace_back(a, b);
        }
    finish_routes(g);
    return g;
}

}  // namespace

std::uint64_t SiteGraph::fingerprint() const {
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    const auto mixd = [&mix](double d) {
        std::uint64_t v;
        static_assert(sizeof v == sizeof d);
        __builtin_memcpy(&v, &d, sizeof v);
        mix(v);
    };
    mix(static_cast<std::uint64_t>(n));
    mix(static_cast<std::uint64_t>(vertices));
    for (std::size_t l = 0; l < cap.size(); ++l) {
        mixd(cap[l]);
        mixd(lat[l]);
        mix(static_cast<std::uint64_t>(ends[l].first) << 32 | static_cast<std::uint32_t>(ends[l].second));
    }
    for (const auto& r : routes) {
        mix(r.size());
        for (int l : r) mix(static_cast<std::uint64_t>(l));
    }
    return h;
}

SiteGraph site_graph(const Topology& t, const Sites& sites, int level) {
    level = site_level(t, level);
    const SiteNetwork* net = level >= 0 ? t.site_network(level) : nullptr;
    std::vector<int> id;  // per site, its cluster id
    if (net)
        for (const auto& m : sites.members) {
            if (t.depth(m.front()) <= level) {
                net = nullptr;
                break;
            }
            id.push_back(t.cluster(m.front(), level));
        }
    if (net)
        for (int a : id)
            for (int b : id)
                if (a != b && !net->route(a, b)) net = nullptr;
    if (!net) return mesh_stand_in(t, sites, level);

    SiteGraph g;
    g.n = sites.count();
    g.from_platform = true;
    std::map<int, int> vertex;  // network vertex -> graph vertex
    for (int s = 0; s < g.n; ++s) vertex[id[static_cast<std::size_t>(s)]] = s;
    const auto v_of = [&](int v) {
        const auto [it, fresh] = vertex.try_emplace(v, static_cast<int>(vertex.size()));
        return it->second;
    };
    for (const NetLink& l : net->links) {
        g.cap.push_back(l.bandwidth_Bps);
        g.lat.push_back(l.latency_s);
        g.ends.emplace_back(v_of(l.from), v_of(l.to));
    }
    for (const auto& [a, b] : net->joins) g.joins.emplace_back(v_of(a), v_of(b));
    g.vertices = static_cast<int>(vertex.size());
    g.routes.resize(static_cast<std::size_t>(g.n * g.n));
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b)
            if (a != b) g.routes[static_cast<std::size_t>(a * g.n + b)] = *net->route(id[static_cast<std::size_t>(a)], id[static_cast<std::size_t>(b)]);
    finish_routes(g);
    return g;
}

double least_route_latency(const SiteGraph& g) {
    double least = 0;
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b)
            if (a != b && g.latency(a, b) > 0 && (least == 0 || g.latency(a, b) < least)) least = g.latency(a, b);
    return least;
}

bool full_mesh(const SiteGraph& g) {
    std::vector<int> riders(static_cast<std::size_t>(g.links()), 0);
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b) {
            if (a == b) continue;
            const auto& route = g.route(a, b);
            if (route.size() != 1) return false;
            if (++riders[static_cast<std::size_t>(route.front())] > 1) return false;
        }
    return true;
}

bool uniform_mesh(const SiteGraph& g) {
    if (!full_mesh(g)) return false;
    for (int l = 0; l < g.links(); ++l)
        if (g.cap[static_cast<std::size_t>(l)] != g.cap.front()) return false;
    return true;
}

SiteGraph graph_of_links(int n, const std::vector<UndirectedLink>& links) {
    SiteGraph g;
    g.n = g.vertices = n;
    g.from_platform = true;
    std::vector<std::vector<std::pair<int, int>>> out(static_cast<std::size_t>(n));  // (link, to)
    for (const UndirectedLink& u : links)
        for (const auto& [x, y] : {std::pair{u.a, u.b}, std::pair{u.b, u.a}}) {
            out[static_cast<std::size_t>(x)].emplace_back(g.links(), y);
            g.cap.push_back(u.bandwidth_Bps);
            g.lat.push_back(u.latency_s);
            g.ends.emplace_back(x, y);
        }
    g.routes.resize(static_cast<std::size_t>(n * n));
    for (int s = 0; s < n; ++s) {  // Dijkstra on (latency, hops)
        const double inf = std::numeric_limits<double>::infinity();
        std::vector<std::pair<double, int>> best(static_cast<std::size_t>(n), {inf, 0});
        std::vector<int> via(static_cast<std::size_t>(n), -1);
        using Item = std::tuple<double, int, int>;
        std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
        best[static_cast<std::size_t>(s)] = {0, 0};
        q.emplace(0.0, 0, s);
        while (!q.empty()) {
            const auto [d, h, u] = q.top();
            q.pop();
            if (std::pair{d, h} != best[static_cast<std::size_t>(u)]) continue;
            for (const auto& [l, v] : out[static_cast<std::size_t>(u)]) {
                const std::pair<double, int> cand{d + g.lat[static_cast<std::size_t>(l)], h + 1};
                if (cand < best[static_cast<std::size_t>(v)]) {
                    best[static_cast<std::size_t>(v)] = cand;
                    via[static_cast<std::size_t>(v)] = l;
                    q.emplace(cand.first, cand.second, v);
                }
            }
        }
        for (int b = 0; b < n; ++b) {
            std::vector<int> rev;
            for (int v = b; v != s && via[static_cast<std::size_t>(v)] >= 0; v = g.ends[static_cast<std::size_t>(via[static_cast<std::size_t>(v)])].first)
                rev.push_back(via[static_cast<std::size_t>(v)]);
            g.routes[static_cast<std::size_t>(s * n + b)].assign(rev.rbegin(), rev.rend());
        }
    }
    finish_routes(g);
    return g;
}

}  // namespace gridcoll::detail
