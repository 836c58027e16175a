#include "sites.hpp"

#include <algorithm>
#include <unordered_map>

namespace gridcoll::detail {

Sites sites_at(const Topology& t, int level) {
    level = std::min(level, t.levels() - 1);
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

StepId WindowedSends::send(int peer, Span src, std::initializer_list<StepId> deps) {
    const int channel = channel_ ? channel_(peer) : peer;
    auto it = std::find_if(sent_.begin(), sent_.end(), [&](const auto& p) { return p.first == channel; });
    if (it == sent_.end()) it = sent_.insert(sent_.end(), {channel, {}});
    std::vector<StepId>& mine = it->second;
    std::vector<StepId> all(deps);
    const int window = window_(peer);
    if (static_cast<int>(mine.size()) >= window) all.push_back(mine[mine.size() - static_cast<std::size_t>(window)]);
    const StepId id = s_.add(Step{Op::Send, Order::DstLeft, peer, src, {}}, all);
    mine.push_back(acked_ && acked_(peer, src.len) ? s_.recv(peer, Span{Buf::Out, 0, 0}) : id);
    return id;
}

StepId recv_acked(Schedule& s, int peer, Span dst, std::initializer_list<StepId> deps) {
    const StepId id = s.recv(peer, dst, deps);
    s.send(peer, Span{Buf::Out, 0, 0}, {id});
    return id;
}

}  // namespace gridcoll::detail
