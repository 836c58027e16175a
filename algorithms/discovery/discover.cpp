// Topology discovery (gridcoll/discovery.hpp): the top-down search from representatives, paper
// 003's 20 % rule on each representative's distances, the module check, and the conversion of
// the group tree into a multilevel Topology with per-level links.
#include "gridcoll/algorithms/discovery.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::discovery {

namespace {

// A group of the tree: a leaf is one rank; an inner node's parts are `kids`, `delta` apart.
struct Node {
    int rank = -1;  // leaf
    double delta = 0;
    std::vector<Node> kids;
    bool leaf() const { return rank >= 0; }
    int rep() const { return leaf() ? rank : kids.front().rep(); }
};

Node leaf(int r) {
    Node n;
    n.rank = r;
    return n;
}

class Search {
public:
    Search(const Probe& probe, const Options& o) : probe_(probe), o_(o) {}

    // Minimum round trip between a and b, timed once per pair.
    double dist(int a, int b) {
        const auto key = std::minmax(a, b);
        auto it = memo_.find(key);
        if (it != memo_.end()) return it->second;
        const double d = probe_(key.first, key.second, o_.probe_bytes, o_.reps);
        ++result.pairs_timed;
        memo_.emplace(key, d);
        return d;
    }

    bool same_class(double x, double y) const {
        const double lo = std::min(x, y), hi = std::max(x, y);
        return hi <= (1 + o_.threshold) * lo;
    }

    Node part(const std::vector<int>& s, bool flat_hint) {
        if (s.size() == 1) return leaf(s.front());
        const int r = s.front();
        std::vector<std::pair<double, int>> d;
        d.reserve(s.size() - 1);
        for (std::size_t i = 1; i < s.size(); ++i) d.emplace_back(dist(r, s[i]), s[i]);
        const auto classes = classify(r, d);
        // A second representative sees one distance too, and so does the set's last member.
        if (classes.size() == 1 && flat_hint && o_.assume_homogeneous && sees_one_class(s.back(), s)) {
            Node n;
            n.delta = classes.front().first;
            for (int x : s) n.kids.push_back(leaf(x));
            return n;
        }
        Node cur = leaf(r);
        for (const auto& [cmin, members] : classes) {
            Node sub = part(members, classes.size() == 1);
            Node n;
            n.delta = cmin;
            n.kids.push_back(std::move(cur));
            if (!sub.leaf() && same_class(sub.delta, cmin))
                for (auto& k : sub.kids) n.kids.push_back(std::move(k));
            else
                n.kids.push_back(std::move(sub));
            cur = std::move(n);
        }
        return cur;
    }

    // True when `x` sees every other member of `s` in one distance class.
    bool sees_one_class(int x, const std::vector<int>& s) {
        double lo = 0, hi = 0;
        bool first = true;
        for (int y : s) {
            if (y == x) continue;
            const double d = dist(x, y);
            lo = first ? d : std::min(lo, d);
            hi = first ? d : std::max(hi, d);
            first = false;
        }
        return first || same_class(lo, hi);
    }

    // Searches every group of single ranks (three or more) again with `big` (split_bytes
    // messages, so bandwidth shows) and puts the structure it finds in the group's place.
    void split_by_bandwidth(Node& n, Search& big) {
        if (n.leaf()) return;
        const bool flat = std::all_of(n.kids.begin(), n.kids.end(), [](const Node& k) { return k.leaf(); });
        if (!flat) {
            for (auto& k : n.kids) split_by_bandwidth(k, big);
            return;
        }
        if (n.kids.size() < 3) return;
        std::vector<int> members;
        for (const auto& k : n.kids) members.push_back(k.rank);
        Node found = big.part(members, false);
        big.check_modules(found);
        if (std::any_of(found.kids.begin(), found.kids.end(), [](const Node& k) { return !k.leaf(); })) n = std::move(found);
    }

    // Dissolves every group whose parts do not look the same from its siblings (top-down).
    void check_modules(Node& m) {
        if (m.leaf()) return;
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t i = 0; i < m.kids.size() && !changed; ++i) {
                if (m.kids[i].leaf() || is_module(m, i)) continue;
                std::vector<Node> inner = std::move(m.kids[i].kids);
                m.kids.erase(m.kids.begin() + static_cast<std::ptrdiff_t>(i));
                for (auto& k : inner) m.kids.push_back(std::move(k));
                changed = true;
            }
        }
        std::sort(m.kids.begin(), m.kids.end(), [](const Node& a, const Node& b) { return a.rep() < b.rep(); });
        for (auto& k : m.kids) check_modules(k);
    }

    Result result;

    // Adds the pairs this search timed to `pairs`.
    void timed(std::set<std::pair<int, int>>& pairs) const {
        for (const auto& kv : memo_) pairs.insert(kv.first);
    }

private:
    // r's distances sorted and cut into classes by the 20 % rule; a distance near a boundary is
    // timed again, and recorded as ambiguous when it stays there.
    std::vector<std::pair<double, std::vector<int>>> classify(int r, std::vector<std::pair<double, int>>& d) {
        std::sort(d.begin(), d.end());
        const double edge = 1 + o_.threshold;
        const auto near = [&](double x, double cmin) {
            const double ratio = x / cmin;
            return ratio > edge / (1 + o_.margin) && ratio < edge * (1 + o_.margin);
        };
        bool relooked = false;
        double cmin = d.front().first;
        for (auto& [x, who] : d) {
            if (cmin > 0 && near(x, cmin) && o_.second_look_reps > 0) {
                const double again = probe_(std::min(r, who), std::max(r, who), o_.probe_bytes, o_.second_look_reps);
                ++result.second_looks;
                x = std::min(x, again);
                memo_[std::minmax(r, who)] = x;
                relooked = true;
            }
            if (x > edge * cmin) cmin = x;
        }
        if (relooked) std::sort(d.begin(), d.end());
        std::vector<std::pair<double, std::vector<int>>> classes;
        for (const auto& [x, who] : d) {
            if (classes.empty() || x > edge * classes.back().first) {
                if (!classes.empty() && near(x, classes.back().first))
                    result.ambiguous.push_back({std::min(r, who), std::max(r, who), x, classes.back().first});
                classes.push_back({x, {}});
            } else if (near(x, classes.back().first)) {
                result.ambiguous.push_back({std::min(r, who), std::max(r, who), x, classes.back().first});
            }
            classes.back().second.push_back(who);
        }
        for (auto& c : classes) std::sort(c.second.begin(), c.second.end());
        return classes;
    }

    // The parts of m.kids[i] (first, second, last) at one distance class from every sibling.
    bool is_module(const Node& m, std::size_t i) {
        const Node& g = m.kids[i];
        std::vector<int> probes{g.kids.front().rep(), g.kids[1].rep()};
        if (g.kids.size() > 2) probes.push_back(g.kids.back().rep());
        for (std::size_t j = 0; j < m.kids.size(); ++j) {
            if (j == i) continue;
            const int z = m.kids[j].rep();
            double lo = 0, hi = 0;
            for (std::size_t k = 0; k < probes.size(); ++k) {
                const double x = dist(probes[k], z);
                lo = k == 0 ? x : std::min(lo, x);
                hi = k == 0 ? x : std::max(hi, x);
            }
            if (!same_class(lo, hi)) return false;
        }
        return true;
    }

    const Probe& probe_;
    const Options& o_;
    std::map<std::pair<int, int>, double> memo_;
};

// Cluster ids per rank from the tree: level l is the l-th group on the way from the root.
void assign(const Node& n, int level, std::vector<int>& next_id, std::vector<int>& path,
            std::vector<std::vector<int>>& clusters) {
    if (n.leaf()) {
        clusters[static_cast<std::size_t>(n.rank)] = path;
        return;
    }
    if (static_cast<int>(next_id.size()) <= level) next_id.push_back(0);
    path.push_back(next_id[static_cast<std::size_t>(level)]++);
    for (const auto& k : n.kids) assign(k, level + 1, next_id, path, clusters);
    path.pop_back();
}

// A rank pair whose deepest shared level is exactly `level` (the lowest first member).
std::pair<int, int> pair_at(const Topology& t, int level) {
    for (int a = 0; a < t.size(); ++a) {
        if (t.depth(a) <= level) continue;
        for (int b : t.members(a, level))
            if (b > a && t.common_level(a, b) == level) return {a, b};
    }
    return {-1, -1};
}

// Every cluster of two or more ranks of `t`, at any level, as its sorted members.
std::set<std::vector<int>> groups(const Topology& t) {
    std::set<std::vector<int>> out;
    for (int l = 0; l < t.levels(); ++l)
        for (int r = 0; r < t.size(); ++r)
            if (l < t.depth(r)) {
                auto m = t.members(r, l);
                if (m.size() > 1 && m.front() == r) out.insert(std::move(m));
            }
    return out;
}

// The groups of `t` plus everyone as a Topology whose level l holds the groups l steps below
// everyone: levels that split nothing in one part of the hierarchy (a site with one machine)
// are gone, as they are from measurements.
Topology canonical(const Topology& t) {
    std::set<std::vector<int>> gs = groups(t);
    std::vector<int> all(static_cast<std::size_t>(t.size()));
    for (int r = 0; r < t.size(); ++r) all[static_cast<std::size_t>(r)] = r;
    gs.insert(all);
    std::vector<std::vector<int>> order(gs.begin(), gs.end());  // widest first: a group's ancestors come before it
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    std::vector<std::vector<int>> ids(static_cast<std::size_t>(t.size()));
    for (std::size_t g = 0; g < order.size(); ++g)
        for (int r : order[g]) ids[static_cast<std::size_t>(r)].push_back(static_cast<int>(g));
    std::size_t depth = 0;
    for (const auto& v : ids) depth = std::max(depth, v.size());
    std::vector<std::string> names;
    for (std::size_t l = 0; l < depth; ++l) names.push_back("c" + std::to_string(l));
    return Topology(std::move(ids), std::move(names));
}

// Per level, the partition as each rank's lowest fellow member (singletons below the depth).
std::vector<std::vector<int>> partitions(const Topology& t) {
    std::vector<std::vector<int>> out;
    for (int l = 0; l <= t.levels(); ++l) {
        std::vector<int> label(static_cast<std::size_t>(t.size()));
        for (int r = 0; r < t.size(); ++r) label[static_cast<std::size_t>(r)] = l < t.depth(r) ? t.members(r, l).front() : r;
        if (out.empty() || out.back() != label) out.push_back(std::move(label));
    }
    return out;
}

int count_clusters(const std::vector<int>& label) {
    int n = 0;
    for (std::size_t r = 0; r < label.size(); ++r) n += label[r] == static_cast<int>(r);
    return n;
}

}  // namespace

Result discover(int size, const Probe& probe, const Options& o) {
    if (size < 1) throw Error("discovery needs at least one rank (got " + std::to_string(size) + ")");
    if (!(o.threshold > 0) || o.threshold > 1000) throw Error("threshold must lie in (0, 1000] (got " + std::to_string(o.threshold) + ")");
    if (!(o.margin >= 0) || o.margin >= o.threshold) throw Error("margin must lie in [0, threshold)");
    if (o.reps < 1 || o.second_look_reps < 0) throw Error("reps must be at least 1, second-look reps at least 0");
    Search s(probe, o);
    std::vector<int> all(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) all[static_cast<std::size_t>(r)] = r;
    Node root = size == 1 ? Node{} : s.part(all, false);
    if (size == 1) root.kids.push_back(leaf(0));
    Options wide = o;
    wide.probe_bytes = o.split_bytes;
    Search big(probe, wide);
    if (o.split_bytes > 0) {
        s.split_by_bandwidth(root, big);
        s.result.bandwidth_pairs = big.result.pairs_timed;
        s.result.second_looks += big.result.second_looks;
        s.result.ambiguous.insert(s.result.ambiguous.end(), big.result.ambiguous.begin(), big.result.ambiguous.end());
    }
    s.check_modules(root);
    std::set<std::pair<int, int>> timed;
    s.timed(timed);
    big.timed(timed);
    s.result.distinct_pairs = static_cast<long>(timed.size());

    std::vector<std::vector<int>> clusters(static_cast<std::size_t>(size));
    std::vector<int> next_id, path;
    assign(root, 0, next_id, path, clusters);
    std::vector<std::string> names;
    for (std::size_t l = 0; l < next_id.size(); ++l) names.push_back("l" + std::to_string(l));
    Result res = std::move(s.result);
    const Topology shape(clusters, names);
    res.flat = shape.levels() <= 1;
    std::vector<std::optional<LevelLink>> links(names.size());
    res.levels.resize(names.size());
    for (int l = 0; l < shape.levels(); ++l) {
        LevelStats& st = res.levels[static_cast<std::size_t>(l)];
        st.clusters = next_id[static_cast<std::size_t>(l)];
        const auto [a, b] = pair_at(shape, l);
        if (a < 0) continue;
        st.pair_a = a;
        st.pair_b = b;
        st.rtt_s = probe(a, b, 1, o.reps);
        ++res.link_probes;
        LevelLink link{st.rtt_s / 2, 0};
        if (o.bandwidth_bytes > 0) {
            const double big = probe(a, b, o.bandwidth_bytes, std::max(1, o.reps / 2));
            ++res.link_probes;
            const double transfer = big / 2 - link.latency_s;
            if (transfer > 0) st.bandwidth_Bps = link.bandwidth_Bps = static_cast<double>(o.bandwidth_bytes) / transfer;
        }
        links[static_cast<std::size_t>(l)] = link;
    }
    res.topology = Topology(std::move(clusters), std::move(names), std::move(links));
    return res;
}

std::vector<LevelComparison> compare_partitions(const Topology& expected, const Topology& found) {
    if (expected.size() != found.size())
        throw Error("cannot compare Topologies of " + std::to_string(expected.size()) + " and " + std::to_string(found.size()) +
                    " ranks");
    const auto e = partitions(canonical(expected)), f = partitions(canonical(found));
    std::vector<LevelComparison> out;
    for (std::size_t l = 0; l < std::max(e.size(), f.size()); ++l) {
        LevelComparison c;
        c.level = static_cast<int>(l);
        c.expected_clusters = l < e.size() ? count_clusters(e[l]) : -1;
        c.found_clusters = l < f.size() ? count_clusters(f[l]) : -1;
        c.equal = l < e.size() && l < f.size() && e[l] == f[l];
        out.push_back(c);
    }
    return out;
}

bool same_groups(const Topology& a, const Topology& b) { return a.size() == b.size() && groups(a) == groups(b); }

bool same_partitions(const std::vector<LevelComparison>& c) {
    return std::all_of(c.begin(), c.end(), [](const LevelComparison& x) { return x.equal; });
}

}  // namespace gridcoll::discovery
