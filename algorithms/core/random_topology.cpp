#include "gridcoll/algorithms/random_topology.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll {

Topology random_topology(int size, std::uint64_t seed, const RandomTopologyOptions& opt) {
    if (size < 1) throw Error("random_topology: size must be >= 1");
    if (opt.min_levels < 1 || opt.max_levels < opt.min_levels) throw Error("random_topology: bad level range");
    std::mt19937_64 rng(seed);
    const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    const int levels = uniform(opt.min_levels, opt.max_levels);

    // Positions 0..size-1 in block order; each group of level l-1 is split into 1..4 parts of
    // random (uneven, possibly one-rank) sizes, unless it stops there.
    std::vector<std::vector<int>> ids(static_cast<std::size_t>(size), std::vector<int>{0});
    struct Group {
        int begin, end;
    };
    std::vector<Group> groups{{0, size}};
    std::vector<int> next_id(static_cast<std::size_t>(levels), 0);
    for (int l = 1; l < levels; ++l) {
        std::vector<Group> deeper;
        for (const Group& g : groups) {
            if (l > 1 && chance(opt.stop)) continue;  // these ranks end at depth l
            const int n = g.end - g.begin;
            const int parts = std::min(n, uniform(1, 4));
            std::vector<int> cuts;  // parts - 1 distinct cut points inside (begin, end)
            std::vector<int> inner(static_cast<std::size_t>(n - 1));
            std::iota(inner.begin(), inner.end(), g.begin + 1);
            std::shuffle(inner.begin(), inner.end(), rng);
            cuts.assign(inner.begin(), inner.begin() + (parts - 1));
            cuts.push_back(g.begin);
            cuts.push_back(g.end);
            std::sort(cuts.begin(), cuts.end());
            for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
                const int id = next_id[static_cast<std::size_t>(l)]++;
                for (int r = cuts[k]; r < cuts[k + 1]; ++r) ids[static_cast<std::size_t>(r)].push_back(id);
                deeper.push_back({cuts[k], cuts[k + 1]});
            }
        }
        groups = std::move(deeper);
    }
    // Interleaving: rank numbers dealt to positions in a random order.
    if (chance(opt.interleave)) std::shuffle(ids.begin(), ids.end(), rng);
    static const char* const kNames[] = {"wan", "site", "lan", "node", "socket"};
    std::vector<std::string> names(kNames, kNames + levels);
    Topology t(std::move(ids), std::move(names));
    if (levels >= 2 && chance(opt.pair_links))
        for (int a = 0; a < next_id[1]; ++a)
            for (int b = a + 1; b < next_id[1]; ++b) t.set_pair_link(0, a, b, LevelLink{10e-3, 1e6 * uniform(1, 3)});
    return t;
}

std::string describe(const Topology& t) {
    std::string s = std::to_string(t.size()) + " ranks, " + std::to_string(t.levels()) + " level(s):";
    for (int l = 0; l < t.levels(); ++l) {
        std::map<int, int> sizes;
        for (int r = 0; r < t.size(); ++r)
            if (t.depth(r) > l) ++sizes[t.cluster(r, l)];
        int lo = t.size(), hi = 0;
        for (const auto& [id, n] : sizes) lo = std::min(lo, n), hi = std::max(hi, n);
        s += " " + t.level_name(l) + " " + std::to_string(sizes.size()) + " cluster(s) of " + std::to_string(lo) +
             (lo == hi ? "" : ".." + std::to_string(hi));
    }
    if (t.levels() >= 2 && t.has_pair_links(0)) s += "; WAN links differ";
    return s;
}

}  // namespace gridcoll
