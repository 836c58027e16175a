// The hosts of a platform and the host of every rank (FORMAT.md "Placement").
//
//   block        fills the cores of the first host, then the next (hosts depth first). With
//                more ranks than cores (oversubscribe), every host keeps a contiguous block,
//                sized in proportion to its cores (the first hosts take the remainder).
//   round-robin  one rank per host in turn (round k visits the hosts with more than k cores),
//                then, when every core is taken, one rank per host per round.
//   file         the listed host of every rank (the first `ranks` of the list).
#include "placement.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "limits.hpp"

namespace gridcoll::platform {

namespace {

void add_hosts(const Zone& z, std::vector<const Zone*>& path, std::vector<Host>& out) {
    path.push_back(&z);
    if (z.is_leaf())
        for (int n = 0; n < z.nodes; ++n) out.push_back(Host{z.name + "-" + std::to_string(n), path, z.cores});
    else
        for (const auto& c : z.children) add_hosts(c, path, out);
    path.pop_back();
}

std::vector<std::size_t> block(const std::vector<Host>& hs, std::int64_t cores, int ranks) {
    std::vector<std::size_t> out;
    out.reserve(static_cast<std::size_t>(ranks));
    if (ranks <= cores) {
        for (std::size_t i = 0; i < hs.size(); ++i)
            for (int c = 0; c < hs[i].cores && static_cast<int>(out.size()) < ranks; ++c) out.push_back(i);
        return out;
    }
    std::vector<std::int64_t> share;
    std::int64_t given = 0;
    for (const auto& h : hs) {
        share.push_back(h.cores * static_cast<std::int64_t>(ranks) / cores);
        given += share.back();
    }
    for (std::size_t i = 0; given < ranks; ++i, ++given) ++share[i];
    for (std::size_t i = 0; i < hs.size(); ++i) out.insert(out.end(), static_cast<std::size_t>(share[i]), i);
    return out;
}

std::vector<std::size_t> round_robin(const std::vector<Host>& hs, int ranks) {
    std::vector<std::size_t> out;
    out.reserve(static_cast<std::size_t>(ranks));
    int most = 0;
    for (const auto& h : hs) most = std::max(most, h.cores);
    for (int round = 0; static_cast<int>(out.size()) < ranks; ++round)
        for (std::size_t i = 0; i < hs.size(); ++i)
            if ((round < hs[i].cores || round >= most) && static_cast<int>(out.size()) < ranks) out.push_back(i);
    return out;
}

}  // namespace

std::vector<Host> hosts(const Platform& p) {
    std::vector<Host> out;
    std::vector<const Zone*> path;
    add_hosts(p.root, path, out);
    return out;
}

namespace detail {

std::int64_t total_cores(const Zone& z) {
    if (z.is_leaf()) return static_cast<std::int64_t>(z.nodes) * z.cores;
    std::int64_t n = 0;
    for (const auto& c : z.children) n += total_cores(c);
    return n;
}

std::vector<std::size_t> place_rank_indices(const Platform& p, int ranks, const std::vector<Host>& hs) {
    std::int64_t cores = 0;
    for (const auto& h : hs) cores += h.cores;
    const Placement& pl = p.placement;
    const std::string where = p.file.empty() ? p.name : p.file;
    if (ranks < 0) throw Error(where + ": placement: negative rank count " + std::to_string(ranks));
    if (ranks == 0) ranks = pl.ranks;

    if (pl.policy == PlacementPolicy::File) {
        if (ranks == 0) ranks = static_cast<int>(pl.hosts.size());
        if (ranks > static_cast<int>(pl.hosts.size()))
            throw Error(where + ": placement: " + std::to_string(ranks) + " ranks asked but the placement lists " +
                        std::to_string(pl.hosts.size()) + " hosts");
        std::unordered_map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < hs.size(); ++i) index.emplace(hs[i].name, i);
        std::vector<int> load(hs.size(), 0);
        std::vector<std::size_t> out;
        for (int r = 0; r < ranks; ++r) {
            const std::string& h = pl.hosts[static_cast<std::size_t>(r)];
            const auto it = index.find(h);
            if (it == index.end()) throw Error(where + ": placement: unknown host \"" + h + "\"");
            if (++load[it->second] > hs[it->second].cores && !pl.oversubscribe)
                throw Error(where + ": placement: more ranks than cores on host \"" + h + "\"");
            out.push_back(it->second);
        }
        return out;
    }

    if (hs.empty()) throw Error(where + ": placement: the platform has no hosts");
    if (ranks == 0) ranks = static_cast<int>(std::min<std::int64_t>(cores, kMaxRanks + 1));
    if (ranks > kMaxRanks)
        throw Error(where + ": placement: " + std::to_string(ranks) + " ranks is more than the limit of " +
                    std::to_string(kMaxRanks));
    if (ranks > cores && !pl.oversubscribe)
        throw Error(where + ": placement: more ranks than cores: " + std::to_string(ranks) + " ranks on " +
                    std::to_string(cores) + " cores (set placement.oversubscribe = true to allow)");
    return pl.policy == PlacementPolicy::Block ? block(hs, cores, ranks) : round_robin(hs, ranks);
}

}  // namespace detail

std::vector<std::string> place_ranks(const Platform& p, int ranks) {
    const std::vector<Host> hs = hosts(p);
    std::vector<std::string> out;
    for (std::size_t i : detail::place_rank_indices(p, ranks, hs)) out.push_back(hs[i].name);
    return out;
}

}  // namespace gridcoll::platform
