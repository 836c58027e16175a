#include "sites.hpp"

#include <algorithm>
#include <unordered_map>

namespace gridcoll::detail {

Sites sites_at(const Topology& t, int level) {
    level = site_level(t, level);
    Sites s;
    s.site_of.resize(static_cast<std::size_t>(t.size()));
    std::unordered_map<int, int> index;  // cluster id at `level` -> site
    for (int r = 0; r < t.size(); ++r) {
        int site;
        if (level < 0 || t.depth(r) <= level) {
            site = s.count();
            s.members.emplace_back();
        } else {
            const auto [it, fresh] = index.emplace(t.cluster(r, level), s.count());
            if (fresh) s.members.emplace_back();
            site = it->second;
        }
        s.members[static_cast<std::size_t>(site)].push_back(r);
        s.site_of[static_cast<std::size_t>(r)] = site;
    }
    return s;
}

Sites first_split(const Topology& t, int& level) {
    for (level = 0; level + 1 < t.levels(); ++level) {
        Sites s = sites_at(t, level);
        if (s.count() > 1) return s;
    }
    return sites_at(t, level);
}

int site_leader(const Topology& t, const Sites& sites, int level, int site, int root) {
    const std::vector<int>& m = sites.members[static_cast<std::size_t>(site)];
    if (root >= 0 && sites.site_of[static_cast<std::size_t>(root)] == site) return root;
    const int g = t.gateway(m.front(), level);
    return g >= 0 ? g : m.front();
}

bool sites_equal_sized(const Sites& sites) {
    return std::all_of(sites.members.begin(), sites.members.end(),
                       [&](const std::vector<int>& m) { return m.size() == sites.members.front().size(); });
}

std::vector<std::pair<int, int>> runs_of(const std::vector<int>& members) {
    std::vector<std::pair<int, int>> runs;
    for (int r : members)
        if (!runs.empty() && runs.back().first + runs.back().second == r) ++runs.back().second;
        else runs.emplace_back(r, 1);
    return runs;
}

StepId WindowedSends::send(int peer, Span src, std::initializer_list<StepId> deps) {
    const int channel = channel_ ? channel_(peer) : peer;
    auto it = std::find_if(sent_.begin(), sent_.end(), [&](const auto& p) { return p.first == channel; });
    if (it == sent_.end()) it = sent_.insert(sent_.end(), {channel, {}});
    std::vector<StepId>& mine = it->second;
    std::vector<StepId> all(deps);
    const int window = window_(peer);
    if (static_cast<int>(mine.size()) >= window) all.push_back(mine[mine.size() - static_cast<std::size_t>(window)]);
    const StepId id = s_.add(Step{Op::Send, Order::DstLeft, 0, peer, src, {}}, all);
    mine.push_back(acked_ && acked_(peer, src.len) ? s_.recv(peer, Span{Buf::Out, 0, 0}) : id);
    return id;
}

StepId recv_acked(Schedule& s, int peer, Span dst, std::initializer_list<StepId> deps) {
    const StepId id = s.recv(peer, dst, deps);
    s.send(peer, Span{Buf::Out, 0, 0}, {id});
    return id;
}

std::vector<std::vector<double>> site_bandwidths(const Topology& t, const Sites& sites, int level) {
    const int wan = site_level(t, level) - 1;
    if (wan < 0 || !t.has_pair_links(wan)) return {};
    std::vector<int> id;  // per site, its cluster id at the sites' level
    for (const auto& m : sites.members) {
        if (t.depth(m.front()) <= wan + 1) return {};
        id.push_back(t.cluster(m.front(), wan + 1));
    }
    const std::size_t C = id.size();
    std::vector<std::vector<double>> b(C, std::vector<double>(C, 0.0));
    for (std::size_t i = 0; i < C; ++i)
        for (std::size_t j = 0; j < C; ++j) {
            if (i == j) continue;
            const auto l = t.pair_link(wan, id[i], id[j]);
            if (!l || !(l->bandwidth_Bps > 0)) return {};
            b[i][j] = l->bandwidth_Bps;
        }
    return b;
}

std::vector<double> unless_equal(std::vector<double> w) {
    if (std::all_of(w.begin(), w.end(), [&](double x) { return x == w.front(); })) return {};
    return w;
}

std::vector<double> bcast_share_weights(const std::vector<std::vector<double>>& b, int root_site,
                                        const std::vector<int>& home) {
    if (b.empty()) return {};
    const auto at = [&b](int x, int y) { return b[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)]; };
    std::vector<double> w;
    for (int h : home) {
        double least = at(root_site, h);
        for (int i : home)
            if (i != h) least = std::min(least, at(h, i));
        w.push_back(least);
    }
    return unless_equal(std::move(w));
}

}  // namespace gridcoll::detail
