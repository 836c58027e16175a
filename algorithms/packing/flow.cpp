#include "flow.hpp"

#include <algorithm>
#include <limits>
#include <queue>

namespace gridcoll::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Dinic's algorithm on a small graph.
class Dinic {
public:
    explicit Dinic(int n) : adj_(static_cast<std::size_t>(n)), level_(static_cast<std::size_t>(n)), it_(static_cast<std::size_t>(n)) {}
    void add(int u, int v, double c) {
        adj_[static_cast<std::size_t>(u)].push_back(static_cast<int>(e_.size()));
        e_.push_back({v, c});
        adj_[static_cast<std::size_t>(v)].push_back(static_cast<int>(e_.size()));
        e_.push_back({u, 0});
    }
    double run(int s, int t) {
        double flow = 0;
        while (bfs(s, t)) {
            std::fill(it_.begin(), it_.end(), 0);
            for (double f; (f = dfs(s, t, kInf)) > 0;) {
                if (f == kInf) return kInf;  // joined without any link between
                flow += f;
            }
        }
        return flow;
    }

private:
    struct E {
        int to;
        double cap;
    };
    bool bfs(int s, int t) {
        std::fill(level_.begin(), level_.end(), -1);
        std::queue<int> q;
        level_[static_cast<std::size_t>(s)] = 0;
        q.push(s);
        while (!q.empty()) {
            const int u = q.front();
            q.pop();
            for (int id : adj_[static_cast<std::size_t>(u)]) {
                const E& e = e_[static_cast<std::size_t>(id)];
                if (e.cap > 1e-12 && level_[static_cast<std::size_t>(e.to)] < 0) {
                    level_[static_cast<std::size_t>(e.to)] = level_[static_cast<std::size_t>(u)] + 1;
                    q.push(e.to);
                }
            }
        }
        return level_[static_cast<std::size_t>(t)] >= 0;
    }
    double dfs(int u, int t, double f) {
        if (u == t) return f;
        auto& i = it_[static_cast<std::size_t>(u)];
        for (; i < adj_[static_cast<std::size_t>(u)].size(); ++i) {
            const int id = adj_[static_cast<std::size_t>(u)][i];
            E& e = e_[static_cast<std::size_t>(id)];
            if (e.cap > 1e-12 && level_[static_cast<std::size_t>(e.to)] == level_[static_cast<std::size_t>(u)] + 1) {
                const double d = dfs(e.to, t, std::min(f, e.cap));
                if (d > 0) {
                    e.cap -= d;
                    e_[static_cast<std::size_t>(id ^ 1)].cap += d;
                    return d;
                }
            }
        }
        return 0;
    }
    std::vector<E> e_;
    std::vector<std::vector<int>> adj_;
    std::vector<int> level_;
    std::vector<std::size_t> it_;
};

struct Arc {
    int u, v;
    double w;
    int id;  // index into the caller's arcs
};

// Chu-Liu / Edmonds: the chosen arcs (indices into `arcs`), one entering every vertex but the
// root. Every vertex is reachable (a complete digraph).
std::vector<int> msa(int n, int root, const std::vector<Arc>& arcs) {
    std::vector<double> in_w(static_cast<std::size_t>(n), kInf);
    std::vector<int> in_a(static_cast<std::size_t>(n), -1);
    for (std::size_t i = 0; i < arcs.size(); ++i) {
        const Arc& a = arcs[i];
        if (a.u != a.v && a.v != root && a.w < in_w[static_cast<std::size_t>(a.v)]) {
            in_w[static_cast<std::size_t>(a.v)] = a.w;
            in_a[static_cast<std::size_t>(a.v)] = static_cast<int>(i);
        }
    }
    std::vector<int> comp(static_cast<std::size_t>(n), -1), mark(static_cast<std::size_t>(n), -1);
    int count = 0;
    for (int v = 0; v < n; ++v) {
        int u = v;
        while (u != root && mark[static_cast<std::size_t>(u)] < 0) {
            mark[static_cast<std::size_t>(u)] = v;
            u = arcs[static_cast<std::size_t>(in_a[static_cast<std::size_t>(u)])].u;
        }
        if (u != root && mark[static_cast<std::size_t>(u)] == v && comp[static_cast<std::size_t>(u)] < 0) {
            for (int x = arcs[static_cast<std::size_t>(in_a[static_cast<std::size_t>(u)])].u; x != u;
                 x = arcs[static_cast<std::size_t>(in_a[static_cast<std::size_t>(x)])].u)
                comp[static_cast<std::size_t>(x)] = count;
            comp[static_cast<std::size_t>(u)] = count++;
        }
    }
    std::vector<int> chosen;
    if (count == 0) {
        for (int v = 0; v < n; ++v)
            if (v != root) chosen.push_back(in_a[static_cast<std::size_t>(v)]);
        return chosen;
    }
    const int cycles = count;
    for (int v = 0; v < n; ++v)
        if (comp[static_cast<std::size_t>(v)] < 0) comp[static_cast<std::size_t>(v)] = count++;
    std::vector<Arc> next;
    next.reserve(arcs.size());  // one allocation (grown by doubling it would cross malloc's mmap threshold)
    for (std::size_t i = 0; i < arcs.size(); ++i) {
        const Arc& a = arcs[i];
        const int cu = comp[static_cast<std::size_t>(a.u)], cv = comp[static_cast<std::size_t>(a.v)];
        if (cu == cv) continue;
        next.push_back({cu, cv, a.w - in_w[static_cast<std::size_t>(a.v)], static_cast<int>(i)});
    }
    std::vector<char> entered(static_cast<std::size_t>(n), 0);  // the vertex of a cycle the chosen arc enters
    for (int k : msa(count, comp[static_cast<std::size_t>(root)], next)) {
        const int i = next[static_cast<std::size_t>(k)].id;
        chosen.push_back(i);
        if (comp[static_cast<std::size_t>(arcs[static_cast<std::size_t>(i)].v)] < cycles)
            entered[static_cast<std::size_t>(arcs[static_cast<std::size_t>(i)].v)] = 1;
    }
    for (int v = 0; v < n; ++v)
        if (comp[static_cast<std::size_t>(v)] < cycles && !entered[static_cast<std::size_t>(v)])
            chosen.push_back(in_a[static_cast<std::size_t>(v)]);
    return chosen;
}

}  // namespace

double max_flow(const SiteGraph& g, const std::vector<int>& sources, const std::vector<int>& sinks) {
    const int s = g.vertices, t = g.vertices + 1;
    Dinic d(g.vertices + 2);
    for (int l = 0; l < g.links(); ++l) d.add(g.ends[static_cast<std::size_t>(l)].first, g.ends[static_cast<std::size_t>(l)].second, g.cap[static_cast<std::size_t>(l)]);
    for (const auto& [a, b] : g.joins) d.add(a, b, kInf);
    for (int v : sources) d.add(s, v, kInf);
    for (int v : sinks) d.add(v, t, kInf);
    return d.run(s, t);
}

std::vector<int> min_arborescence(int n, int root, const std::vector<std::vector<double>>& cost) {
    std::vector<Arc> arcs;
    arcs.reserve(static_cast<std::size_t>(n * n));
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
            if (a != b && b != root) arcs.push_back({a, b, cost[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)], 0});
    std::vector<int> parent(static_cast<std::size_t>(n), -1);
    for (int i : msa(n, root, arcs)) parent[static_cast<std::size_t>(arcs[static_cast<std::size_t>(i)].v)] = arcs[static_cast<std::size_t>(i)].u;
    return parent;
}

}  // namespace gridcoll::detail
