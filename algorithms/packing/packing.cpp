#include "packing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>

#include "flow.hpp"

namespace gridcoll::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// How often each link is ridden by tree `parent`'s edges.
std::vector<int> link_use(const SiteGraph& g, const std::vector<int>& parent, Way w) {
    std::vector<int> use(static_cast<std::size_t>(g.links()), 0);
    for (int v = 0; v < g.n; ++v)
        if (const int p = parent[static_cast<std::size_t>(v)]; p >= 0)
            for_edge_links(g, p, v, w, [&use](int l) { ++use[static_cast<std::size_t>(l)]; });
    return use;
}

// Garg-Könemann's starting link lengths, delta / capacity, and D, their capacity-weighted sum.
std::vector<double> starting_lengths(const SiteGraph& g, double eps, double& D) {
    const double m = std::max(1, g.links());
    const double delta = (1 + eps) * std::pow((1 + eps) * m, -1.0 / eps);
    std::vector<double> len(static_cast<std::size_t>(g.links()));
    D = 0;
    for (std::size_t l = 0; l < len.size(); ++l) {
        len[l] = delta / g.cap[l];
        D += delta;
    }
    return len;
}

// Flow per distinct tree of one root, as the packing finds them.
struct Found {
    Way way = Way::Out;
    std::map<std::vector<int>, double> flow;
    double total() const {
        double t = 0;
        for (const auto& [p, f] : flow) t += f;
        return t;
    }
};

// The largest load of any link over its capacity, for these flows.
double congestion(const SiteGraph& g, const std::vector<Found>& found) {
    std::vector<double> load(static_cast<std::size_t>(g.links()), 0.0);
    for (const Found& f : found)
        for (const auto& [parent, x] : f.flow) {
            const auto use = link_use(g, parent, f.way);
            for (std::size_t l = 0; l < use.size(); ++l) load[l] += x * use[l];
        }
    double c = 0;
    for (std::size_t l = 0; l < load.size(); ++l) c = std::max(c, load[l] / g.cap[l]);
    return c;
}

// One multiplicative-weights round for one commodity: route `demand` along cheapest trees.
void route_demand(const SiteGraph& g, int root, double demand, double eps, std::vector<double>& len, double& D, Found& out) {
    const Way w = out.way;
    std::vector<std::vector<double>> cost(static_cast<std::size_t>(g.n), std::vector<double>(static_cast<std::size_t>(g.n), 0.0));
    for (double rem = demand; rem > 0 && D < 1;) {
        for (int a = 0; a < g.n; ++a)
            for (int b = 0; b < g.n; ++b) {
                double c = 0;
                if (a != b) for_edge_links(g, a, b, w, [&c, &len](int l) { c += len[static_cast<std::size_t>(l)]; });
                cost[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = c;
            }
        std::vector<int> parent = min_arborescence(g.n, root, cost);
        const auto use = link_use(g, parent, w);
        double bottleneck = kInf;
        for (std::size_t l = 0; l < use.size(); ++l)
            if (use[l] > 0) bottleneck = std::min(bottleneck, g.cap[l] / use[l]);
        const double u = std::min(rem, bottleneck);
        rem -= u;
        out.flow[parent] += u;
        for (std::size_t l = 0; l < use.size(); ++l)
            if (use[l] > 0) {
                const double grow = eps * u * use[l] / g.cap[l];
                D += g.cap[l] * len[l] * grow;
                len[l] *= 1 + grow;
            }
    }
}

// Demands scaled so that the best concurrent rate is at most 1 but not much less (the method's
// rounds count the demands met, and a round's flow must be comparable to the capacities): by the
// largest rate each root could spread at alone, to all other sites at once.
double demand_scale(const SiteGraph& g, const std::vector<Demand>& demands) {
    double scale = kInf;
    for (const Demand& d : demands) {
        std::vector<int> others;
        for (int v = 0; v < g.n; ++v)
            if (v != d.root) others.push_back(v);
        if (d.bytes <= 0) continue;
        if (d.way != Way::In) scale = std::min(scale, max_flow(g, {d.root}, others) / d.bytes);
        if (d.way != Way::Out) scale = std::min(scale, max_flow(g, others, {d.root}) / d.bytes);
    }
    return std::isfinite(scale) ? scale : 1.0;
}

// The kept trees' flows chosen again (Garg-Könemann restricted to them: each round routes along
// the cheapest kept tree of each root): pruning a packing leaves its weights far from the best
// for the trees left.
void reweigh(const SiteGraph& g, const std::vector<Demand>& demands, std::vector<Found>& found, const PackOptions& o) {
    const double eps = o.epsilon;
    double D = 0;
    std::vector<double> len = starting_lengths(g, eps, D);
    std::vector<std::vector<std::pair<std::vector<int>, std::vector<int>>>> trees(found.size());  // (parent, use)
    for (std::size_t i = 0; i < found.size(); ++i) {
        for (const auto& [p, x] : found[i].flow) trees[i].emplace_back(p, link_use(g, p, found[i].way));
        found[i].flow.clear();
    }
    const double scale = demand_scale(g, demands);
    const auto start = std::chrono::steady_clock::now();
    const auto over = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.seconds_budget; };
    for (int round = 0; D < 1 && round < 100000 && !(round > 0 && over()); ++round)
        for (std::size_t i = 0; i < found.size() && D < 1; ++i) {
            if (trees[i].empty()) continue;
            double rem = demands[i].bytes * scale;
            while (rem > 0 && D < 1) {
                std::size_t best = 0;
                double best_cost = kInf;
                for (std::size_t t = 0; t < trees[i].size(); ++t) {
                    double cost = 0;
                    for (std::size_t l = 0; l < len.size(); ++l) cost += trees[i][t].second[l] * len[l];
                    if (cost < best_cost) best_cost = cost, best = t;
                }
                const auto& use = trees[i][best].second;
                double bottleneck = kInf;
                for (std::size_t l = 0; l < use.size(); ++l)
                    if (use[l] > 0) bottleneck = std::min(bottleneck, g.cap[l] / use[l]);
                const double u = std::min(rem, bottleneck);
                rem -= u;
                found[i].flow[trees[i][best].first] += u;
                for (std::size_t l = 0; l < use.size(); ++l)
                    if (use[l] > 0) {
                        const double grow = eps * u * use[l] / g.cap[l];
                        D += g.cap[l] * len[l] * grow;
                        len[l] *= 1 + grow;
                    }
            }
        }
}

// Keeps, per root, the largest trees up to o.keep of its flow (at most o.max_trees), then scales
// every rate so that no link is overloaded.
Packing prune(const SiteGraph& g, const std::vector<Demand>& demands, std::vector<Found> found, const PackOptions& o) {
    for (Found& f : found) {
        std::vector<std::pair<double, std::vector<int>>> by_flow;
        for (auto& [p, x] : f.flow) by_flow.emplace_back(x, p);
        std::sort(by_flow.begin(), by_flow.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const double total = f.total();
        double kept = 0;
        f.flow.clear();
        for (auto& [x, p] : by_flow) {
            if (static_cast<int>(f.flow.size()) >= o.max_trees || (kept >= o.keep * total && !f.flow.empty())) break;
            kept += x;
            f.flow.emplace(std::move(p), x);
        }
    }
    reweigh(g, demands, found, o);
    const double c = congestion(g, found);
    Packing out;
    for (std::size_t i = 0; i < demands.size(); ++i) {
        RootTrees rt{demands[i].root, demands[i].bytes, {}, demands[i].way};
        for (const auto& [p, x] : found[i].flow) rt.trees.push_back(SiteTree{p, c > 0 ? x / c : 0});
        std::sort(rt.trees.begin(), rt.trees.end(), [](const SiteTree& a, const SiteTree& b) { return a.rate > b.rate; });
        out.roots.push_back(std::move(rt));
    }
    return out;
}

// Ties go to the direct route (fewer forwarding sites), or with `forwarding` to the longest
// chain of sites (every site its route crosses forwards).
std::vector<int> least_latency_tree(const SiteGraph& g, int root, Way w, bool forwarding = false) {
    std::vector<double> dist(static_cast<std::size_t>(g.n), kInf);
    std::vector<int> parent(static_cast<std::size_t>(g.n), -1);
    std::vector<char> done(static_cast<std::size_t>(g.n), 0);
    dist[static_cast<std::size_t>(root)] = 0;
    for (int k = 0; k < g.n; ++k) {
        int u = -1;
        for (int v = 0; v < g.n; ++v)
            if (!done[static_cast<std::size_t>(v)] && (u < 0 || dist[static_cast<std::size_t>(v)] < dist[static_cast<std::size_t>(u)])) u = v;
        if (u < 0) break;
        done[static_cast<std::size_t>(u)] = 1;
        for (int v = 0; v < g.n; ++v) {
            const double d = dist[static_cast<std::size_t>(u)] + edge_latency(g, u, v, w);
            const double tie = forwarding ? 1 + 1e-9 : 1 - 1e-9;
            if (!done[static_cast<std::size_t>(v)] && v != u && d < dist[static_cast<std::size_t>(v)] * tie) {
                dist[static_cast<std::size_t>(v)] = d;
                parent[static_cast<std::size_t>(v)] = u;
            }
        }
    }
    return parent;
}

}  // namespace

SiteGraph reversed(SiteGraph g) {
    for (auto& e : g.ends) std::swap(e.first, e.second);
    for (auto& j : g.joins) std::swap(j.first, j.second);
    std::vector<std::vector<int>> routes(g.routes.size());
    std::vector<double> lat(g.route_lat.size());
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b) {
            routes[static_cast<std::size_t>(a * g.n + b)] = g.route(b, a);
            lat[static_cast<std::size_t>(a * g.n + b)] = g.latency(b, a);
        }
    g.routes = std::move(routes);
    g.route_lat = std::move(lat);
    return g;
}

int SiteTree::root() const {
    for (std::size_t v = 0; v < parent.size(); ++v)
        if (parent[v] < 0) return static_cast<int>(v);
    return -1;
}

std::vector<int> SiteTree::children(int site) const {
    std::vector<int> c;
    for (std::size_t v = 0; v < parent.size(); ++v)
        if (parent[v] == site) c.push_back(static_cast<int>(v));
    return c;
}

std::vector<int> SiteTree::top_down() const {
    std::vector<int> order{root()};
    for (std::size_t i = 0; i < order.size(); ++i)
        for (int c : children(order[i])) order.push_back(c);
    return order;
}

double SiteTree::depth_latency(const SiteGraph& g, Way w) const {
    std::vector<double> at(parent.size(), 0.0);
    double deepest = 0;
    for (int v : top_down())
        if (parent[static_cast<std::size_t>(v)] >= 0) {
            const int p = parent[static_cast<std::size_t>(v)];
            at[static_cast<std::size_t>(v)] = at[static_cast<std::size_t>(p)] + edge_latency(g, p, v, w);
            deepest = std::max(deepest, at[static_cast<std::size_t>(v)]);
        }
    return deepest;
}

double RootTrees::rate() const {
    double r = 0;
    for (const SiteTree& t : trees) r += t.rate;
    return r;
}

double Packing::seconds(const SiteGraph& g) const {
    double slowest = 0, deepest = 0;
    for (const RootTrees& rt : roots) {
        const double r = rt.rate();
        slowest = std::max(slowest, r > 0 ? rt.bytes / r : (rt.bytes > 0 ? kInf : 0.0));
        for (const SiteTree& t : rt.trees) deepest = std::max(deepest, t.depth_latency(g, rt.way));
    }
    return slowest + deepest;
}

PackOptions shard_pack_options(double bytes) {
    PackOptions o;
    o.max_trees = std::clamp(static_cast<int>(bytes / (8.0 * static_cast<double>(kLeastPiece))), 1, 4);
    return o;
}

Packing pack_trees(const SiteGraph& g, const std::vector<Demand>& demands, const PackOptions& o) {
    const double eps = o.epsilon;
    double D = 0;
    std::vector<double> len = starting_lengths(g, eps, D);
    const double scale = demand_scale(g, demands);
    std::vector<Found> found(demands.size());
    for (std::size_t i = 0; i < demands.size(); ++i) found[i].way = demands[i].way;
    const auto start = std::chrono::steady_clock::now();
    const auto spent = [&start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    // Whole rounds only (every demand routed as often), within 60 % of the budget; the rest is
    // the re-weighing's.
    for (int round = 0; D < 1 && round < 100000; ++round) {
        for (std::size_t i = 0; i < demands.size() && D < 1; ++i)
            route_demand(g, demands[i].root, demands[i].bytes * scale, eps, len, D, found[i]);
        if (spent() > 0.6 * o.seconds_budget) break;
    }
    PackOptions rest = o;
    rest.seconds_budget = std::max(0.05, o.seconds_budget - spent());
    return prune(g, demands, std::move(found), rest);
}

SiteTree forwarding_tree(const SiteGraph& g, int root) { return SiteTree{least_latency_tree(g, root, Way::Out, true), 0.0}; }

Packing latency_trees(const SiteGraph& g, const std::vector<Demand>& demands) {
    std::vector<Found> found(demands.size());
    for (std::size_t i = 0; i < demands.size(); ++i) {
        found[i].way = demands[i].way;
        found[i].flow[least_latency_tree(g, demands[i].root, demands[i].way)] = std::max(demands[i].bytes, 1.0);
    }
    PackOptions keep_all;
    return prune(g, demands, std::move(found), keep_all);
}

std::shared_ptr<const Packing> plan_trees(const SiteGraph& g, const std::vector<Demand>& demands, const PackOptions& o) {
    // Cached without the scale of the demands: the candidates, and the rates the network gives
    // their streams, do not depend on it.
    using Key = std::tuple<std::uint64_t, std::vector<std::tuple<int, double, Way>>, double, int, double>;
    struct Candidates {
        Packing fast, packed;             // least latency, packed
        Packing fast_got, packed_got;     // the same with the rates achieved_rates gives them
    };
    static std::mutex lock;
    static std::map<Key, std::shared_ptr<const Candidates>> cache;
    double top = 0;
    for (const Demand& x : demands) top = std::max(top, x.bytes);
    std::vector<std::tuple<int, double, Way>> rel;
    for (const Demand& x : demands) rel.emplace_back(x.root, top > 0 ? x.bytes / top : 1.0, x.way);
    const Key key{g.fingerprint(), rel, o.epsilon, o.max_trees, o.keep};
    std::shared_ptr<const Candidates> found;
    {
        std::lock_guard<std::mutex> hold(lock);
        if (auto it = cache.find(key); it != cache.end()) found = it->second;
    }
    if (!found) {
        std::vector<Demand> unit;
        for (const auto& [root, x, way] : rel) unit.push_back({root, x, way});
        auto made = std::make_shared<Candidates>();
        made->fast = latency_trees(g, unit);
        made->packed = g.n > 2 ? pack_trees(g, unit, o) : made->fast;
        // One root's trees only: the sharing of many roots' trees takes too long to work out
        // for a plan (64 sites' allgather: minutes), and is left to the planned rates there.
        made->fast_got = unit.size() == 1 ? Packing{with_achieved_rates(g, made->fast, false)} : made->fast;
        made->packed_got = unit.size() == 1 ? Packing{with_achieved_rates(g, made->packed, false)} : made->packed;
        std::lock_guard<std::mutex> hold(lock);
        if (cache.size() > 256) cache.clear();
        found = cache.emplace(key, std::move(made)).first->second;
    }
    // Which is faster with the rates the network gives (one root's): a least-latency star whose routes share a
    // link fits it at the planned rates, but the link gives its long routes a fraction of theirs
    // (a 7-site partial mesh, 4 MiB broadcast under SMPI: the star 17.8 s, the packed trees 8.6 s,
    // bound 8.43 s; both planned at the bound).
    const auto seconds = [&](Packing p) {
        for (std::size_t i = 0; i < demands.size(); ++i) p.roots[i].bytes = demands[i].bytes;
        return p.seconds(g);
    };
    auto pick = std::make_shared<Packing>(seconds(found->packed_got) < seconds(found->fast_got) ? found->packed : found->fast);
    for (std::size_t i = 0; i < demands.size(); ++i) pick->roots[i].bytes = demands[i].bytes;
    return pick;
}

double bcast_rate_bound(const SiteGraph& g, int root) {
    double least = kInf;
    for (int v = 0; v < g.n; ++v)
        if (v != root) least = std::min(least, max_flow(g, {root}, {v}));
    return least;
}

double spread_time_bound(const SiteGraph& g, const std::vector<double>& bytes) {
    const int n = g.n;
    double worst = 0, total = 0, capacity = 0;
    for (double b : bytes) total += b * (n - 1);
    for (double c : g.cap) capacity += c;
    const auto cut = [&](const std::vector<char>& in) {
        std::vector<int> s, t;
        double from_s = 0;
        for (int v = 0; v < n; ++v) {
            (in[static_cast<std::size_t>(v)] ? s : t).push_back(v);
            if (in[static_cast<std::size_t>(v)]) from_s += bytes[static_cast<std::size_t>(v)];
        }
        if (s.empty() || t.empty() || from_s <= 0) return;
        worst = std::max(worst, from_s / max_flow(g, s, t));
    };
    std::vector<char> in(static_cast<std::size_t>(n), 0);
    if (n <= 16) {
        for (std::uint32_t mask = 1; mask + 1 < (1u << n); ++mask) {
            for (int v = 0; v < n; ++v) in[static_cast<std::size_t>(v)] = (mask >> v) & 1;
            cut(in);
        }
    } else {
        for (int v = 0; v < n; ++v) {
            std::fill(in.begin(), in.end(), 0);
            in[static_cast<std::size_t>(v)] = 1;
            cut(in);
            for (char& x : in) x = !x;
            cut(in);
        }
    }
    return std::max(worst, capacity > 0 ? total / capacity : 0.0);
}

double allreduce_time_bound(const SiteGraph& g, double bytes) {
    // Every site and the rest: the vector crosses that cut both ways at least once.
    double worst = 0, capacity = 0;
    for (double c : g.cap) capacity += c;
    for (int v = 0; v < g.n; ++v) {
        std::vector<int> s{v}, t;
        for (int w = 0; w < g.n; ++w)
            if (w != v) t.push_back(w);
        worst = std::max({worst, bytes / max_flow(g, s, t), bytes / max_flow(g, t, s)});
    }
    return std::max({worst, capacity > 0 ? 2.0 * (g.n - 1) * bytes / capacity : 0.0});
}

double deepest_latency(const SiteGraph& g, int root) {
    double d = 0;
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b)
            if (a != b && (root < 0 || a == root)) d = std::max(d, g.latency(a, b));
    return d;
}

}  // namespace gridcoll::detail
