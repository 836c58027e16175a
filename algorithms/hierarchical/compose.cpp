#include "compose.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "../core/engines.hpp"
#include "gridcoll/algorithms/registry.hpp"

namespace gridcoll::detail {

Cuts every_level(const Topology& t) {
    Cuts c;
    for (int l = -1; l < t.levels(); ++l) c.levels.push_back(l);
    return c;
}

Cuts two_layers(const Topology& t, int cluster_level, const char* algorithm) {
    // A Topology with fewer levels than asked: its deepest level is the cluster (a flat one: all).
    if (cluster_level >= t.levels()) cluster_level = t.levels() - 1;
    if (cluster_level < 0)
        throw Error(std::string(algorithm) + ": no cluster level " + std::to_string(cluster_level) +
                    " (the Topology has levels 0.." + std::to_string(t.levels() - 1) + ")");
    return Cuts{{-1, cluster_level}};
}

namespace {

// The part of rank m below cut level `next` (-1 - m for a rank that is a part of its own).
int part_of(const Topology& t, int m, int next) {
    if (next < 0 || t.depth(m) <= next) return -1 - m;
    return t.cluster(m, next);
}

bool in_cluster(const Topology& t, int m, int level, int id) {
    return level < 0 || (t.depth(m) > level && t.cluster(m, level) == id);
}

// Walks the cuts for `rank`, calling visit(cut, members, root index, own index) for every group
// of more than one member it belongs to.
template <class Visit>
void walk(const Topology& t, const Cuts& cuts, int rank, int root, Visit&& visit) {
    int local_root = root;  // the root of rank's cluster at the current cut
    const int n = static_cast<int>(cuts.levels.size());
    std::vector<int> members;
    std::unordered_set<int> seen;
    for (int i = 0; i < n; ++i) {
        const int level = cuts.levels[i];
        const int next = i + 1 < n ? cuts.levels[i + 1] : t.levels();
        const int id = level < 0 ? 0 : t.cluster(rank, level);
        if (level >= 0 && t.depth(rank) <= level) return;  // rank's depth ends above this cut
        // The masters of the cluster's parts: the local root for its own part, else the part's
        // lowest rank (members are scanned in increasing order).
        const int root_part = part_of(t, local_root, next);
        const int my_part = part_of(t, rank, next);
        members.clear();
        int my_master = -1;
        seen.clear();
        for (int m = 0; m < t.size(); ++m) {
            if (!in_cluster(t, m, level, id)) continue;
            const int p = part_of(t, m, next);
            if (p == root_part) {
                if (m != local_root) continue;
            } else if (const int gw = p >= 0 ? t.gateway(m, next) : -1; gw >= 0) {
                if (m != gw) continue;  // the part's gateway is its master
            } else if (p >= 0 && !seen.insert(p).second) {
                continue;  // not the part's lowest rank (a rank of its own is always its master)
            }
            members.push_back(m);
            if (p == my_part) my_master = m;
        }
        if (my_master == rank && members.size() > 1) {
            const auto idx = [&](int r) { return static_cast<int>(std::lower_bound(members.begin(), members.end(), r) - members.begin()); };
            visit(i, members, idx(local_root), idx(rank));
        }
        local_root = my_master;
    }
}

}  // namespace

std::vector<LevelGroup> level_groups(const Topology& t, const Cuts& cuts, int rank, int root) {
    std::vector<LevelGroup> out;
    walk(t, cuts, rank, root, [&](int cut, const std::vector<int>& members, int r, int me) {
        out.push_back(LevelGroup{cut, members, r, me});
    });
    return out;
}

int top_cut(const Topology& t, const Cuts& cuts, int root) {
    int top = -1;
    walk(t, cuts, root, root, [&](int cut, const std::vector<int>&, int, int) {
        if (top < 0) top = cut;
    });
    return top;
}

Span Composer::fresh_tmp(std::uint64_t bytes) {
    const std::uint64_t off = s_.tmp_bytes();
    s_.need_tmp(off + bytes);
    return Span{Buf::Tmp, off, bytes};
}

void Composer::writers_before(const Span& sp, StepId since, std::vector<StepId>& out) const {
    if (sp.len == 0) return;
    const auto& w = written_[static_cast<int>(sp.buf)];
    auto it = w.upper_bound(sp.off);
    if (it != w.begin()) --it;
    for (; it != w.end() && it->first < sp.off + sp.len; ++it)
        if (it->second.first > sp.off && it->second.second < since) out.push_back(it->second.second);
}

void Composer::record_write(const Span& sp, StepId id) {
    if (sp.len == 0) return;
    auto& w = written_[static_cast<int>(sp.buf)];
    const std::uint64_t a = sp.off, b = sp.off + sp.len;
    // Cut the intervals that straddle a or b, then replace everything inside [a, b).
    auto split = [&](std::uint64_t x) {
        auto it = w.upper_bound(x);
        if (it == w.begin()) return;
        --it;
        if (it->first < x && it->second.first > x) {
            w.emplace(x, it->second);
            it->second.first = x;
        }
    };
    split(a);
    split(b);
    w.erase(w.lower_bound(a), w.lower_bound(b));
    w.emplace(a, std::make_pair(b, id));
}

StepId Composer::append(const Step& step, StepId since) {
    if (step.op != Op::Recv) writers_before(step.src, since, deps_);
    if (step.op != Op::Send) writers_before(step.dst, since, deps_);
    const StepId id = s_.add(step, deps_);
    if (step.op != Op::Send) record_write(step.dst, id);
    return id;
}

StepId Composer::add(Step step, Deps deps) { return add(step, std::span<const StepId>(deps.begin(), deps.size())); }

StepId Composer::add(Step step, std::span<const StepId> deps) {
    deps_.assign(deps.begin(), deps.end());
    return append(step, static_cast<StepId>(s_.size_steps()));
}

StepId Composer::embed(const Schedule& part, const std::vector<int>& members, const Placement& where,
                       StepId after) {
    const StepId base = static_cast<StepId>(s_.size_steps());
    const Span tmp = fresh_tmp(part.tmp_bytes());
    const auto place = [&](Span sp) {
        switch (sp.buf) {
            case Buf::In: sp.buf = where.in.buf; sp.off += where.in.off; break;
            case Buf::Out: sp.buf = where.out.buf; sp.off += where.out.off; break;
            case Buf::Tmp: sp.off += tmp.off; break;
        }
        return sp;
    };
    s_.reserve(part.size_steps(), part.size_steps() * 2);
    for (StepId i = 0; i < part.size_steps(); ++i) {
        Step st = part.step(i);
        if (st.op == Op::Send || st.op == Op::Recv) st.peer = members[static_cast<std::size_t>(st.peer)];
        st.src = place(st.src);
        st.dst = place(st.dst);
        deps_.clear();
        for (StepId d : part.deps_of(i)) deps_.push_back(base + d);
        if (after != kNoStep) deps_.push_back(after);
        append(st, base);
    }
    return base;
}

Schedule build_for_group(const Request& r, int size, int me, int root, const Method& m) {
    const Algorithm& a = find_algorithm(r.coll, m.algorithm);
    if (a.needs_topology)
        throw Error(std::string(to_string(r.coll)) + " algorithm '" + a.name +
                    "' is hierarchical; a level of a hierarchical method needs a flat one");
    Request q = r;
    q.size = size;
    q.rank = me;
    q.root = root;
    q.params = m.params;
    q.topology = nullptr;
    if (!q.commutative && !a.keeps_order) throw_needs_commutative(q, a.name.c_str());
    return a.build(q);
}

Schedule build_for_group(const Request& r, const LevelGroup& g, const Method& m) {
    return build_for_group(r, static_cast<int>(g.members.size()), g.me, g.root, m);
}

Method level_method(Collective c, const MethodParams& p, int index, const Method& fallback) {
    const int n = static_cast<int>(p.levels.size());
    Method m = n == 0 ? fallback : p.levels[static_cast<std::size_t>(std::clamp(index, 0, n - 1))];
    if (m.params.segment == 0 && p.segment != 0 && find_algorithm(c, m.algorithm).segmented) m.params.segment = p.segment;
    return m;
}

}  // namespace gridcoll::detail
