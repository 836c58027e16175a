#include "unit_trees.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

namespace gridcoll::detail {

namespace {

constexpr int kMostSites = 16;
// Below this a tree's share is a few pieces, and its pipeline's latency, not the links' rate,
// sets the time (mixed-wan-5x16 under SMPI, old / trees of one rate: allgather 1 KiB a rank, 5 KB
// a tree, 0.052 / 0.054 s, 8 KiB, 43 KB a tree, 0.187 / 0.142 s; allreduce 64 KiB, 4 KB a tree,
// 0.073 / 0.106 s, 1 MiB, 70 KB a tree, 0.431 / 0.426 s).
constexpr double kLeastTreeBytes = 4.0 * static_cast<double>(kLeastPiece);

// Integer capacities on the sites and the super-source (vertex n), dense, row after row.
struct Slots {
    int n = 0;  // vertices
    std::vector<int> at;
    explicit Slots(int vertices) : n(vertices), at(static_cast<std::size_t>(vertices * vertices), 0) {}
    int& operator()(int u, int v) { return at[static_cast<std::size_t>(u * n + v)]; }
    int operator()(int u, int v) const { return at[static_cast<std::size_t>(u * n + v)]; }
};

// Edmonds-Karp on a dense graph of a few vertices: whether `need` arc-disjoint paths lead from
// s to t (it stops there).
bool has_paths(const Slots& cap, int s, int t, int need) {
    Slots left = cap;
    std::vector<int> from(static_cast<std::size_t>(cap.n)), queue(static_cast<std::size_t>(cap.n));
    for (int flow = 0; flow < need;) {
        std::fill(from.begin(), from.end(), -1);
        from[static_cast<std::size_t>(s)] = s;
        std::size_t head = 0, tail = 0;
        queue[tail++] = s;
        while (head < tail && from[static_cast<std::size_t>(t)] < 0) {
            const int u = queue[head++];
            for (int v = 0; v < cap.n; ++v)
                if (from[static_cast<std::size_t>(v)] < 0 && left(u, v) > 0) {
                    from[static_cast<std::size_t>(v)] = u;
                    queue[tail++] = v;
                }
        }
        if (from[static_cast<std::size_t>(t)] < 0) return false;
        int push = need - flow;
        for (int v = t; v != s; v = from[static_cast<std::size_t>(v)]) push = std::min(push, left(from[static_cast<std::size_t>(v)], v));
        for (int v = t; v != s; v = from[static_cast<std::size_t>(v)]) {
            left(from[static_cast<std::size_t>(v)], v) -= push;
            left(v, from[static_cast<std::size_t>(v)]) += push;
        }
        flow += push;
    }
    return true;
}

// Every site reached from the super-source by at least `need` arc-disjoint paths.
bool reaches_all(const Slots& cap, int need) {
    const int s = cap.n - 1;
    for (int v = 0; v < s; ++v)
        if (!has_paths(cap, s, v, need)) return false;
    return true;
}

// Lovász's condition while a tree with sites `in` grows and `more` trees are still to come:
// a site in the tree is reached by `more` disjoint paths, one outside it by more + 1 once the
// tree is merged into the source (the tree must still reach it too).
bool can_finish(const Slots& cap, const std::vector<char>& in, int more) {
    const int s = cap.n - 1;
    Slots merged = cap;
    for (int v = 0; v < s; ++v)
        if (in[static_cast<std::size_t>(v)])
            for (int w = 0; w <= s; ++w) {
                merged(s, w) += cap(v, w);
                merged(v, w) = 0;
            }
    for (int v = 0; v < s; ++v)
        if (in[static_cast<std::size_t>(v)] ? !has_paths(cap, s, v, more) : !has_paths(merged, s, v, more + 1)) return false;
    return true;
}

// One tree grown from the super-source, each arc the first (nearest the tree's root, then with
// the most slots left) that keeps can_finish; its arcs leave `cap`. Empty where none is found
// (cannot happen when the condition held before).
std::vector<int> grow_tree(Slots& cap, int more) {
    const int s = cap.n - 1;
    std::vector<int> parent(static_cast<std::size_t>(s), -1), depth(static_cast<std::size_t>(s + 1), 0);
    std::vector<char> in(static_cast<std::size_t>(s + 1), 0);
    in[static_cast<std::size_t>(s)] = 1;
    for (int grown = 0; grown < s; ++grown) {
        std::vector<std::tuple<int, int, int, int>> arcs;  // (depth, -slots, from, to)
        for (int u = 0; u <= s; ++u)
            for (int v = 0; v < s; ++v)
                if (in[static_cast<std::size_t>(u)] && !in[static_cast<std::size_t>(v)] && cap(u, v) > 0)
                    arcs.emplace_back(depth[static_cast<std::size_t>(u)], -cap(u, v), u, v);
        std::sort(arcs.begin(), arcs.end());
        bool taken = false;
        for (const auto& [d, minus_slots, u, v] : arcs) {
            if (u == s && grown > 0) continue;  // one source a tree
            --cap(u, v);
            in[static_cast<std::size_t>(v)] = 1;
            if (can_finish(cap, in, more)) {
                parent[static_cast<std::size_t>(v)] = u == s ? -1 : u;
                depth[static_cast<std::size_t>(v)] = u == s ? 0 : d + 1;
                taken = true;
                break;
            }
            in[static_cast<std::size_t>(v)] = 0;
            ++cap(u, v);
        }
        if (!taken) return {};
    }
    return parent;
}

// The slots of rate u between neighbouring sites, and k[r] arcs from the super-source to each
// source.
Slots slots_of(const SiteGraph& g, const std::vector<SiteArc>& arcs, double u, const std::vector<int>& k) {
    Slots cap(g.n + 1);
    for (const SiteArc& a : arcs) cap(a.from, a.to) += static_cast<int>(std::floor(g.cap[static_cast<std::size_t>(a.link)] / u + 1e-9));
    for (int r = 0; r < g.n; ++r) cap(g.n, r) = k[static_cast<std::size_t>(r)];
    return cap;
}

struct Fit {
    double seconds;  // the slowest root's bytes over its trees' rate
    double u;
    std::vector<int> k;  // trees per site
};

// What no packing on the arcs beats: a site's bytes out over its arcs out, the others' bytes in
// over its arcs in, all bytes times n - 1 over all the arcs.
double arc_bound(const SiteGraph& g, const std::vector<SiteArc>& arcs, const std::vector<double>& bytes) {
    std::vector<double> in(static_cast<std::size_t>(g.n), 0.0), out(in);
    double capacity = 0, total = 0, bound = 0;
    for (const SiteArc& a : arcs) {
        const double c = g.cap[static_cast<std::size_t>(a.link)];
        out[static_cast<std::size_t>(a.from)] += c;
        in[static_cast<std::size_t>(a.to)] += c;
        capacity += c;
    }
    for (double b : bytes) total += b;
    for (std::size_t v = 0; v < in.size(); ++v) {
        if (in[v] <= 0 || out[v] <= 0) return 0;  // a site no arc reaches or leaves
        bound = std::max({bound, (total - bytes[v]) / in[v], bytes[v] / out[v]});
    }
    return std::max(bound, total * (g.n - 1) / capacity);
}

// The least time at which `most` trees for the largest root fit (to 0.1 %), within `slack` of
// `bound`: the trees a root are fixed by its bytes, their rate falls as the time grows, and the
// slots with it, so whether they fit only grows with the time.
std::optional<Fit> fit(const SiteGraph& g, const std::vector<SiteArc>& arcs, const std::vector<Demand>& demands, int most,
                       double bound, double slack) {
    double top = 0;
    for (const Demand& d : demands) top = std::max(top, d.bytes);
    std::vector<int> k(static_cast<std::size_t>(g.n), 0);
    int total = 0;
    for (const Demand& d : demands) total += k[static_cast<std::size_t>(d.root)] = std::max(1, static_cast<int>(std::ceil(most * d.bytes / top - 1e-9)));
    const auto fits = [&](double seconds) { return reaches_all(slots_of(g, arcs, top / (seconds * most), k), total); };
    double lo = bound, hi = bound * slack;
    if (!fits(hi)) return std::nullopt;
    if (fits(lo)) hi = lo;
    while (hi > lo * 1.001) {
        const double mid = (lo + hi) / 2;
        (fits(mid) ? hi : lo) = mid;
    }
    return Fit{hi, top / (hi * most), k};
}

// For trees that carry sums in and totals out (Way::Both): each link's capacity the least of its
// two directions' halves, so that a tree edge's two ways fit wherever its out-way does.
SiteGraph both_ways(SiteGraph g, const std::vector<SiteArc>& arcs) {
    const std::vector<double> cap = g.cap;
    for (const SiteArc& a : arcs)
        for (const SiteArc& b : arcs)
            if (b.from == a.to && b.to == a.from)
                g.cap[static_cast<std::size_t>(a.link)] = std::min(cap[static_cast<std::size_t>(a.link)], cap[static_cast<std::size_t>(b.link)]) / 2;
    return g;
}

}  // namespace

std::vector<SiteArc> direct_arcs(const SiteGraph& g) {
    std::vector<SiteArc> arcs;
    std::vector<int> riders(static_cast<std::size_t>(g.links()), 0);
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b)
            if (a != b && g.route(a, b).size() == 1) {
                arcs.push_back({a, b, g.route(a, b).front()});
                ++riders[static_cast<std::size_t>(arcs.back().link)];
            }
    // A link that is the whole route of two pairs (sites behind one point) is no one's own.
    std::erase_if(arcs, [&](const SiteArc& x) { return riders[static_cast<std::size_t>(x.link)] > 1; });
    return arcs;
}

std::optional<Packing> unit_trees(const SiteGraph& net, const std::vector<Demand>& demands, int max_trees, double slack) {
    if (net.n < 2 || net.n > kMostSites || demands.empty()) return std::nullopt;
    const Way way = demands.front().way;
    for (const Demand& d : demands)
        if (d.way != way || d.bytes <= 0) return std::nullopt;
    if (way == Way::In) {  // out-trees on the network turned round
        std::vector<Demand> out = demands;
        for (Demand& d : out) d.way = Way::Out;
        auto p = unit_trees(reversed(net), out, max_trees, slack);
        if (p)
            for (RootTrees& rt : p->roots) rt.way = Way::In;
        return p;
    }
    const std::vector<SiteArc> arcs = direct_arcs(net);
    const SiteGraph g = way == Way::Both ? both_ways(net, arcs) : net;
    std::vector<double> bytes(static_cast<std::size_t>(g.n), 0.0);
    for (const Demand& d : demands) bytes[static_cast<std::size_t>(d.root)] = d.bytes;
    const double bound = arc_bound(g, arcs, bytes);
    if (bound <= 0) return std::nullopt;
    std::optional<Fit> best;
    for (int most = 1; most <= std::max(1, max_trees); ++most)
        if (const auto f = fit(g, arcs, demands, most, bound, slack); f && (!best || f->seconds < best->seconds / 1.02)) best = f;
    if (!best) return std::nullopt;
    Slots cap = slots_of(g, arcs, best->u, best->k);
    int left = 0;
    for (int k : best->k) left += k;
    Packing out;
    for (const Demand& d : demands) out.roots.push_back(RootTrees{d.root, d.bytes, {}, way});
    while (left-- > 0) {
        std::vector<int> parent = grow_tree(cap, left);
        if (parent.empty()) return std::nullopt;
        SiteTree t{std::move(parent), best->u};
        const int root = t.root();
        for (RootTrees& rt : out.roots)
            if (rt.root == root) rt.trees.push_back(t);
    }
    for (const RootTrees& rt : out.roots)
        if (static_cast<int>(rt.trees.size()) != best->k[static_cast<std::size_t>(rt.root)]) return std::nullopt;
    return out;
}

namespace {

// The shards that meet every single-site cut of the allgather at once (unit_shard_counts); empty
// where no arc joins two sites.
std::vector<double> cut_shards(const SiteGraph& g, const std::vector<SiteArc>& arcs) {
    std::vector<double> in(static_cast<std::size_t>(g.n), 0.0);
    double all = 0;
    for (const SiteArc& a : arcs) {
        in[static_cast<std::size_t>(a.to)] += g.cap[static_cast<std::size_t>(a.link)];
        all += g.cap[static_cast<std::size_t>(a.link)];
    }
    if (all <= 0) return {};
    const double t = (g.n - 1) / all;
    std::vector<double> s;
    for (double c : in) s.push_back(std::max(0.0, 1 - t * c));
    return s;
}

// The seconds a unit of vector takes spread as shards of `k` trees of one rate each (none where
// they do not fit): the slowest shard's trees set the rate u, and all of them carry sum(k) u.
std::optional<double> unit_time(const SiteGraph& g, const std::vector<SiteArc>& arcs, const std::vector<int>& k) {
    std::vector<Demand> d;
    std::vector<double> bytes;
    int most = 0, sum = 0;
    for (int v = 0; v < g.n; ++v) {
        d.push_back({v, static_cast<double>(k[static_cast<std::size_t>(v)])});
        bytes.push_back(d.back().bytes);
        most = std::max(most, k[static_cast<std::size_t>(v)]);
        sum += k[static_cast<std::size_t>(v)];
    }
    const auto f = fit(g, arcs, d, most, arc_bound(g, arcs, bytes), 1.5);
    if (!f) return std::nullopt;
    return f->seconds / sum;
}

// unit_shard_counts without its cache.
std::vector<double> chosen_shard_counts(const SiteGraph& net, int max_trees) {
    const std::vector<SiteArc> arcs = direct_arcs(net);
    const SiteGraph g = both_ways(net, arcs);
    const std::vector<double> s = cut_shards(g, arcs);
    if (s.empty()) return {};
    const double top = *std::max_element(s.begin(), s.end());
    std::vector<std::pair<double, std::vector<int>>> tried;  // (time, counts)
    for (int most = 1; most <= std::max(1, max_trees); ++most) {
        std::vector<int> sized, equal(static_cast<std::size_t>(g.n), most);
        for (double x : s) sized.push_back(std::max(1, static_cast<int>(std::lround(most * x / top))));
        for (const auto& k : {equal, sized})
            if (const auto t = unit_time(g, arcs, k)) tried.emplace_back(*t, k);
    }
    if (tried.empty()) return {};
    double least = tried.front().first;
    for (const auto& [t, k] : tried) least = std::min(least, t);
    const std::vector<int>* best = nullptr;
    int fewest = 0;
    for (const auto& [t, k] : tried) {
        const int trees = std::accumulate(k.begin(), k.end(), 0);
        if (t <= least * 1.02 && (!best || trees < fewest)) best = &k, fewest = trees;
    }
    return {best->begin(), best->end()};
}

}  // namespace

std::vector<double> unit_shard_counts(const SiteGraph& net, int max_trees) {
    if (net.n < 2 || net.n > kMostSites || !full_mesh(net) || uniform_mesh(net)) return {};
    static std::mutex lock;
    static std::map<std::pair<std::uint64_t, int>, std::vector<double>> cache;
    const std::pair<std::uint64_t, int> key{net.fingerprint(), max_trees};
    {
        std::lock_guard<std::mutex> hold(lock);
        if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    std::vector<double> counts = chosen_shard_counts(net, max_trees);
    std::lock_guard<std::mutex> hold(lock);
    if (cache.size() > 256) cache.clear();
    return cache.emplace(key, std::move(counts)).first->second;
}

std::vector<Demand> cut_shard_demands(const SiteGraph& g, double bytes, int max_trees) {
    const std::vector<double> counts = unit_shard_counts(g, max_trees);
    const double sum = std::accumulate(counts.begin(), counts.end(), 0.0);
    std::vector<Demand> d;
    for (std::size_t v = 0; v < counts.size(); ++v) d.push_back({static_cast<int>(v), bytes * counts[v] / sum, Way::Both});
    return d;
}

std::shared_ptr<const Packing> plan_unit_trees(const SiteGraph& g, const std::vector<Demand>& demands, int max_trees) {
    using Key = std::tuple<std::uint64_t, std::vector<std::pair<int, double>>, int, Way>;
    static std::mutex lock;
    static std::map<Key, std::shared_ptr<const Packing>> cache;
    double top = 0;
    for (const Demand& d : demands) top = std::max(top, d.bytes);
    std::vector<std::pair<int, double>> rel;
    for (const Demand& d : demands) rel.emplace_back(d.root, top > 0 ? d.bytes / top : 1.0);
    const Way way = demands.empty() ? Way::Out : demands.front().way;
    const Key key{g.fingerprint(), rel, max_trees, way};
    std::shared_ptr<const Packing> made;
    bool known = false;
    {
        std::lock_guard<std::mutex> hold(lock);
        if (auto it = cache.find(key); it != cache.end()) made = it->second, known = true;
    }
    if (!known) {  // planned on the proportions (the trees do not depend on the scale)
        std::vector<Demand> unit;
        for (const auto& [root, x] : rel) unit.push_back({root, x * 1e6, way});
        if (auto p = unit_trees(g, unit, max_trees)) made = std::make_shared<const Packing>(std::move(*p));
        std::lock_guard<std::mutex> hold(lock);
        if (cache.size() > 256) cache.clear();
        cache.emplace(key, made);
    }
    if (!made) return nullptr;
    auto scaled = std::make_shared<Packing>(*made);
    for (std::size_t i = 0; i < demands.size(); ++i) {
        RootTrees& rt = scaled->roots[i];
        rt.bytes = demands[i].bytes;
        if (rt.bytes < kLeastTreeBytes * static_cast<double>(rt.trees.size())) return nullptr;
    }
    return scaled;
}

std::shared_ptr<const Packing> taken_unit_trees(const SiteGraph& g, const std::vector<Demand>& demands, int trees,
                                                int most_by_default) {
    return full_mesh(g) && !uniform_mesh(g) ? plan_unit_trees(g, demands, unit_tree_count(trees, most_by_default)) : nullptr;
}

// The least capacity along the route from a to b.
static double route_capacity(const SiteGraph& g, int a, int b) {
    double least = std::numeric_limits<double>::infinity();
    for (int l : g.route(a, b)) least = std::min(least, g.cap[static_cast<std::size_t>(l)]);
    return least;
}

double two_hop_rate(const SiteGraph& g, int root) {
    double sum = 0;
    for (int h = 0; h < g.n; ++h) {
        if (h == root) continue;
        double least = route_capacity(g, root, h);
        for (int i = 0; i < g.n; ++i)
            if (i != root && i != h) least = std::min(least, route_capacity(g, h, i));
        sum += least;
    }
    return sum;
}

std::shared_ptr<const Packing> taken_unit_bcast_trees(const SiteGraph& g, int root, double bytes, int trees) {
    auto p = taken_unit_trees(g, {{root, bytes}}, trees, kUnitBcastTrees);
    if (!p || bytes < kUnitBcastTreeBytes * static_cast<double>(p->roots.front().trees.size())) return nullptr;
    return p->roots.front().rate() >= kUnitBcastGain * two_hop_rate(g, root) ? p : nullptr;
}

int unit_tree_count(int trees, int most_by_default) { return trees > 0 ? trees : most_by_default; }
int unit_tree_window(int win) { return std::max(win, 8); }

}  // namespace gridcoll::detail
