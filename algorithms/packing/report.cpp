// The front ends' view of the tree packing (gridcoll/algorithms/tree_packing.hpp).
#include <chrono>
#include <cstdio>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/tree_packing.hpp"
#include "out_trees.hpp"
#include "packing.hpp"
#include "unit_trees.hpp"

namespace gridcoll {

namespace {

using namespace detail;

std::vector<double> site_bytes(const Sites& sites, std::uint64_t block) {
    std::vector<double> b;
    for (const auto& m : sites.members) b.push_back(static_cast<double>(block) * static_cast<double>(m.size()));
    return b;
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string trees_text(const SiteGraph& g, const Packing& p) {
    std::string s;
    for (const RootTrees& rt : p.roots)
        for (const SiteTree& t : rt.trees) {
            s += std::string(rt.way == Way::Out ? "    from site " : rt.way == Way::In ? "    into site " : "    into and from site ") + std::to_string(rt.root) + ": " +
                 fmt("%.4g", t.rate / 1e6) + " MB/s, depth " + fmt("%.4g", t.depth_latency(g, rt.way) * 1e3) + " ms, parents";
            for (int x : t.parent) s += " " + (x < 0 ? std::string("-") : std::to_string(x));
            s += "\n";
        }
    return s;
}

// The broadcast's last bytes along a shallower tree (bcast_tail), where it takes them.
std::string tail_text(const SiteGraph& g, const RootTrees& trees, double bytes) {
    const BcastTail tail = bcast_tail(g, trees, static_cast<std::uint64_t>(bytes), 0, 1);
    if (!tail.bytes) return "";
    Packing one;
    one.roots.push_back(RootTrees{trees.root, static_cast<double>(tail.bytes), {tail.tree}, Way::Out});
    return "    then its last " + std::to_string(tail.bytes) + " B after them, along the least-latency tree:\n" + trees_text(g, one);
}

}  // namespace

std::vector<int> site_levels(const Topology& t) {
    std::vector<int> v;
    for (int l = 0; l + 1 < t.levels(); ++l)
        if (sites_at(t, l).count() > 1) v.push_back(l);
    return v;
}

SiteBound site_bound(const Topology& t, int level, Collective c, std::uint64_t bytes, int root) {
    level = site_level(t, level);
    const Sites sites = sites_at(t, level);
    const SiteGraph g = site_graph(t, sites, level);
    const int rs = sites.site_of[static_cast<std::size_t>(root)];
    const double m = static_cast<double>(bytes);
    SiteBound b;
    switch (c) {
        case Collective::Bcast:
            b.throughput = m / bcast_rate_bound(g, rs);
            b.latency = deepest_latency(g, rs);
            break;
        case Collective::Reduce: {
            const SiteGraph r = reversed(g);
            b.throughput = m / bcast_rate_bound(r, rs);
            b.latency = deepest_latency(r, rs);
            break;
        }
        case Collective::Allgather:
        case Collective::Allgatherv:
            b.throughput = spread_time_bound(g, site_bytes(sites, bytes));
            b.latency = deepest_latency(g);
            break;
        case Collective::ReduceScatterBlock:
        case Collective::ReduceScatter:
            b.throughput = spread_time_bound(reversed(g), site_bytes(sites, bytes));
            b.latency = deepest_latency(g);
            break;
        case Collective::Allreduce:
            b.throughput = allreduce_time_bound(g, m);
            b.latency = deepest_latency(g);
            break;
        default:
            throw Error("no site bound for " + std::string(to_string(c)) + " (bcast, reduce, allgather(v), "
                        "reduce_scatter(_block), allreduce)");
    }
    if (sites.count() < 2) b.throughput = b.latency = 0;
    b.seconds = b.throughput + b.latency;
    return b;
}

namespace {

// The allreduce with the method key shards=cut (cut_shard_demands), where it applies: the trees
// each site's shard takes and the time predicted.
std::string cut_shards_text(const SiteGraph& g, double bytes) {
    const std::vector<Demand> shards = cut_shard_demands(g, bytes, kUnitShardTrees);
    const auto p = shards.empty() ? nullptr : taken_unit_trees(g, shards, 0, kUnitShardTrees);
    if (!p) return "";
    std::string k;
    for (const RootTrees& rt : p->roots) k += " " + std::to_string(rt.trees.size());
    return "  with shards=cut (trees a site" + k + "): predicted " + fmt("%.4g", p->seconds(g)) + " s\n";
}

}  // namespace

std::string describe_site_packing(const Topology& t, int level, std::uint64_t bcast_bytes, std::uint64_t block_bytes,
                                  int root) {
    level = site_level(t, level);
    const Sites sites = sites_at(t, level);
    const SiteGraph g = site_graph(t, sites, level);
    std::string s = "sites: the " + std::to_string(sites.count()) + " clusters of level " + std::to_string(level) + " (" +
                    t.level_name(level) + "), joined by " +
                    (g.from_platform ? std::to_string(g.links()) + " network links as the platform routes them"
                                     : std::string("a full mesh of the level above's links (no network given)")) + "\n";
    if (sites.count() < 2) return s;
    const int rs = sites.site_of[static_cast<std::size_t>(root)];
    const auto line = [&](const char* what, Collective c, std::uint64_t bytes) {
        const SiteBound b = site_bound(t, level, c, bytes, root);
        s += std::string("  ") + what + ": bound " + fmt("%.4g", b.seconds) + " s (throughput " + fmt("%.4g", b.throughput) +
             " s + deepest path " + fmt("%.4g", b.latency * 1e3) + " ms)\n";
    };
    // The plan the packed methods take: trees of one rate on a full mesh of uneven links
    // (unit_trees.hpp; the broadcast only where they beat wanstream's two-hop shares) where they
    // fit, else the packing's.
    const auto timed = [&](const std::vector<Demand>& d, const PackOptions& o = {}) {
        const auto t0 = std::chrono::steady_clock::now();
        auto p = d.size() == 1 ? taken_unit_bcast_trees(g, d.front().root, d.front().bytes, 0)
                 : taken_unit_trees(g, d, 0, d.front().way == Way::Both ? kUnitShardTrees : kUnitTrees);
        const bool unit = p != nullptr;
        if (!unit && d.size() == 1 && full_mesh(g)) {  // the broadcast runs wanstream there
            const double rate = two_hop_rate(g, d.front().root);
            s += "  packed runs wanstream's two-hop shares here (a full mesh): " + fmt("%.4g", rate / 1e6) +
                 " MB/s in all, the message at that rate " + fmt("%.4g", d.front().bytes / rate) + " s\n";
            return;
        }
        if (!unit) p = plan_trees(g, d, o);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        s += "  planned in " + fmt("%.3g", took) + " s, predicted " + fmt("%.4g", p->seconds(g)) + " s" +
             (unit ? " (trees of one rate)" : "") + ":\n" + trees_text(g, *p);
        if (!unit && d.size() == 1) s += tail_text(g, with_achieved_rates(g, *p, true).front(), d.front().bytes);
    };
    line(("bcast of " + std::to_string(bcast_bytes) + " B from rank " + std::to_string(root)).c_str(), Collective::Bcast, bcast_bytes);
    timed({{rs, static_cast<double>(bcast_bytes)}});
    line(("allgather of " + std::to_string(block_bytes) + " B a rank").c_str(), Collective::Allgather, block_bytes);
    std::vector<Demand> all;
    const auto bytes = site_bytes(sites, block_bytes);
    for (int v = 0; v < sites.count(); ++v) all.push_back({v, bytes[static_cast<std::size_t>(v)]});
    timed(all);
    line(("allreduce of " + std::to_string(bcast_bytes) + " B").c_str(), Collective::Allreduce, bcast_bytes);
    std::vector<Demand> shards;  // a shard a site, summed into it and spread back out along the same trees
    for (int v = 0; v < sites.count(); ++v) shards.push_back({v, static_cast<double>(bcast_bytes) / sites.count(), Way::Both});
    timed(shards, shard_pack_options(static_cast<double>(bcast_bytes) / sites.count()));
    s += cut_shards_text(g, static_cast<double>(bcast_bytes));
    line(("reduce_scatter_block of " + std::to_string(block_bytes) + " B a rank").c_str(), Collective::ReduceScatterBlock, block_bytes);
    return s;
}

}  // namespace gridcoll
