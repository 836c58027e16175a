// The rates packed trees get from a network that shares links as TCP and SimGrid do
// (packing.hpp, achieved_rates).
#include <algorithm>
#include <cmath>
#include <limits>

#include "packing.hpp"

namespace gridcoll::detail {

namespace {

struct EdgeFlow {
    const std::vector<int>* route;
    double weight;          // 1 / route latency
    double cap;             // what its stream can feed it
    std::size_t stream;
    double rate = 0;
};

// Weighted max-min fair rates with per-flow caps, by progressive filling: each round the least
// of (a link's room per unit of its unfixed weight, a flow's cap per unit of its weight) fixes.
// A link counts while unfixed flows cross it (`users`), not while its weight, which sums and
// subtracts rates of very different sizes (1 / latency), rounds to something above zero: a link
// with no flow left would then set a level that fixes no flow, and the filling would never end.
void fill(const SiteGraph& g, std::vector<EdgeFlow>& flows) {
    std::vector<double> room(g.cap), weight(g.cap.size(), 0.0);
    std::vector<int> users(g.cap.size(), 0);
    for (const EdgeFlow& f : flows)
        for (int l : *f.route) {
            weight[static_cast<std::size_t>(l)] += f.weight;
            ++users[static_cast<std::size_t>(l)];
        }
    const auto level = [&](int l) {  // the fill level at which link l is full
        const auto i = static_cast<std::size_t>(l);
        return weight[i] > 0 ? std::max(0.0, room[i]) / weight[i] : 0.0;
    };
    std::vector<char> fixed(flows.size(), 0);
    for (std::size_t left = flows.size(); left > 0;) {
        double t = std::numeric_limits<double>::infinity();
        for (std::size_t l = 0; l < room.size(); ++l)
            if (users[l] > 0) t = std::min(t, level(static_cast<int>(l)));
        for (std::size_t i = 0; i < flows.size(); ++i)
            if (!fixed[i]) t = std::min(t, flows[i].cap / flows[i].weight);
        for (std::size_t i = 0; i < flows.size(); ++i) {
            if (fixed[i]) continue;
            bool tight = flows[i].cap / flows[i].weight <= t * (1 + 1e-12);
            for (int l : *flows[i].route) tight = tight || level(l) <= t * (1 + 1e-12);
            if (!tight) continue;
            flows[i].rate = std::min(flows[i].cap, t * flows[i].weight);
            fixed[i] = 1;
            --left;
            for (int l : *flows[i].route) {
                room[static_cast<std::size_t>(l)] -= flows[i].rate;
                weight[static_cast<std::size_t>(l)] -= flows[i].weight;
                --users[static_cast<std::size_t>(l)];
            }
        }
    }
}

}  // namespace

std::vector<std::vector<double>> achieved_rates(const SiteGraph& g, const std::vector<RootTrees>& roots, bool back_into_root) {
    std::vector<EdgeFlow> flows;
    std::vector<std::pair<std::size_t, std::size_t>> stream_of;  // stream -> (root, tree)
    for (std::size_t r = 0; r < roots.size(); ++r)
        for (std::size_t k = 0; k < roots[r].trees.size(); ++k) {
            const SiteTree& t = roots[r].trees[k];
            const std::size_t s = stream_of.size();
            stream_of.emplace_back(r, k);
            const Way way = roots[r].way;
            const auto edge = [&](int a, int b) {  // a stream's message from a to b
                flows.push_back({&g.route(a, b), 1.0 / std::max(g.latency(a, b), 1e-6), std::numeric_limits<double>::infinity(), s});
            };
            int first = -1;
            for (int v = 0; v < g.n; ++v)
                if (const int p = t.parent[static_cast<std::size_t>(v)]; p >= 0) {
                    if (way != Way::In) edge(p, v);
                    if (way != Way::Out) edge(v, p);
                    if (p == roots[r].root && (first < 0 || g.latency(p, v) < g.latency(p, first))) first = v;
                }
            if (back_into_root && way == Way::Out && first >= 0) edge(first, roots[r].root);
        }
    std::vector<double> stream(stream_of.size(), std::numeric_limits<double>::infinity());
    for (int round = 0; round < 30; ++round) {
        fill(g, flows);
        std::vector<double> next(stream.size(), std::numeric_limits<double>::infinity());
        for (const EdgeFlow& f : flows) next[f.stream] = std::min(next[f.stream], f.rate);
        bool same = true;
        for (std::size_t s = 0; s < stream.size(); ++s) same = same && std::fabs(next[s] - stream[s]) <= 1e-9 * next[s];
        stream = next;
        if (same) break;
        for (EdgeFlow& f : flows) f.cap = stream[f.stream];
    }
    std::vector<std::vector<double>> out(roots.size());
    for (std::size_t s = 0; s < stream_of.size(); ++s) {
        auto& v = out[stream_of[s].first];
        v.resize(roots[stream_of[s].first].trees.size());
        v[stream_of[s].second] = stream[s];
    }
    return out;
}

std::vector<RootTrees> with_achieved_rates(const SiteGraph& g, const Packing& plan, bool back_into_root) {
    std::vector<RootTrees> roots = plan.roots;
    const auto got = achieved_rates(g, roots, back_into_root);
    for (std::size_t r = 0; r < roots.size(); ++r)
        for (std::size_t k = 0; k < roots[r].trees.size(); ++k)
            if (got[r][k] > 0 && std::isfinite(got[r][k])) roots[r].trees[k].rate = got[r][k];
    return roots;
}

}  // namespace gridcoll::detail
