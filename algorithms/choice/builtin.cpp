// The builtin decision: what `auto` becomes without a rules file, for every collective and every
// message size (gridcoll/algorithms/resolver.hpp, step 2). It hands the call to the MPI library
// unless the Topology has sites joined by a WAN, and then picks what measurement found faster
// than the MPI library's own method (docs/design/auto-default.md holds the sweeps):
//
//   small messages  site leaders that talk directly (`leaders`, after MagPIe: one WAN latency)
//                   for barrier, bcast, reduce, allreduce, allgather and scan;
//   large messages  the bandwidth methods: wanstream bcast, multi-tree allreduce, gather and
//                   scatter straight between the root and every rank (linear); a reduce, an
//                   allgather and a scan stay with the leaders
//                   (each site's data crosses each WAN link once, all links at once);
//   reduce-scatter  each site receives only its part, once per site pair: site leaders for the
//                   smallest, every rank a leader (paired) from 1 KiB;
//   exscan, allgatherv  as scan and allgather; gatherv, scatterv, alltoallv the MPI library's own;
//   WAN graphs      where the sites' network is not a full mesh of equal links (a ring, hubs, a
//                   partial mesh, links of their own speeds): the packed trees for the large
//                   bcast, reduce, allreduce, allgather(v) and reduce-scatter (graph_bands);
//   several leaders where one node's link, not the WAN, limits an allreduce, broadcast, reduce,
//                   allgather, scan or exscan of the leaders (many sites, slow node links):
//                   `coleaders:k=K`, K from the links (leaders_per_site; a 16-site grid of
//                   12.5 MB/s node links under SMPI: allreduce 0.86x / 0.83x, bcast 0.76x /
//                   0.67x, reduce 0.80x / 0.72x, scan and exscan 0.87x / 0.82x of one leader at
//                   16 / 32 KiB; allgather, two leaders, 0.84-0.98x);
//   all-to-all      up to 1 KiB blocks paired where a site holds three ranks or more (blocks
//                   regrouped by column inside sites, one WAN message per site pair and column:
//                   das-4x32 SMPI 8 B 40.3 ms against the MPI library's 113.3 ms), the MPI library's
//                   own up to 64 KiB (paired 1.1-1.9x slower there), from 64 KiB linear
//                   (every block straight to its rank, all WAN links at once: emulated das-4x2
//                   1.51x / 1.30x / 1.19x faster than Open MPI's own at 64 KiB / 256 KiB / 1 MiB;
//                   das-4x32 SMPI equal at 64 KiB, 3.0x faster than SimGrid's own at 256 KiB;
//                   paired 0.94x under the PMPI library's progress thread at 64 KiB; ECO's
//                   funnel through one leader 4.3-5.3x);
//   (ECO's scan, which gathers everything at rank 0, is 3-6x slower than Open MPI's own chain per
//   rank on das-4x2; the leaders scan 1.03-1.32x faster.)
//
// "Sites joined by a WAN": the clusters of level 1 (the sites) are more than one, the links
// between them at least kWanRatio times slower (latency) than every link below them, or the
// Topology has no link numbers (a rank map of sites says no more than that) unless its only
// split is into nodes (the PMPI library's default Topology: one site). A LAN of bridged
// segments (eco-cmu) or a cluster of clusters behind a fast gateway (madiii) gets the MPI
// library's own method.
#include "builtin.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "../hierarchical/sites.hpp"
#include "../packing/site_graph.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll::detail {

namespace {

constexpr double kWanRatio = 10;  // site link latency over the slowest link below it
constexpr std::uint64_t KiB = 1024;

// Size bands per collective: the method from `from` bytes on (the last band that starts at or
// below the message size wins; bytes per rank, as Operation::bytes counts them). An empty method
// text: the MPI library's own. The switches were measured on das-4x32 under SMPI and on the
// emulated das-4x2 (docs/design/auto-default.md); scatter's 64 KiB was 4 % slower there.
// A bandwidth band (`bulk`) applies only where the message takes at least one WAN latency on a
// WAN link (wan_bulk): below that the WAN's latency, not its rate, sets the time and the band
// before it stays (geo-dc, 10 Gb/s links of 15-40 ms, SMPI: wanstream bcast 3.1x / 6.4x and the
// multi-tree allreduce 1.5x / 1.8x the leaders' at 1 / 4 MiB; the das platforms' 1 MB/s WAN
// moves 10 KB in a latency).
// A band with `min_site` applies only where some site holds at least that many ranks.
struct Band {
    std::uint64_t from;
    const char* method;
    bool bulk = false;
    int min_site = 0;
};

// Where the sites' network is a graph rather than a full mesh of equal links (a ring, hubs, a
// partial mesh; links of different speeds), the bandwidth methods are the packed trees, which
// plan with the routes (docs/design/tree-packing.md).
const std::vector<Band>* graph_bands(Collective c) {
    // bcast: packed at every size, its least-latency tree for small messages (the fewest WAN
    // hops from the root's site; twohub-10x8 SMPI 8 B 0.93x leaders', equal on the ring and pmesh);
    // allgather packed from 4 KiB (0.51-0.70x leaders' at 4 KiB; pmesh 1.10x at 1 KiB).
    static const std::vector<Band> bcast{{0, "packed"}};
    static const std::vector<Band> reduce{{0, "leaders"}, {64 * KiB, "packed", true}};
    static const std::vector<Band> allreduce{{0, "leaders"}, {64 * KiB, "packed", true}};
    static const std::vector<Band> allgather{{0, "leaders"}, {4 * KiB, "packed"}};
    static const std::vector<Band> reduce_scatter{{0, "leaders"}, {1 * KiB, "paired"}, {64 * KiB, "packed"}};
    switch (c) {
        case Collective::Bcast: return &bcast;
        case Collective::Reduce: return &reduce;
        case Collective::Allreduce: return &allreduce;
        case Collective::Allgather:
        case Collective::Allgatherv: return &allgather;
        case Collective::ReduceScatter:
        case Collective::ReduceScatterBlock: return &reduce_scatter;
        default: return nullptr;
    }
}

const std::vector<Band>& bands(Collective c) {
    static const std::vector<Band> barrier{{0, "leaders"}};
    static const std::vector<Band> bcast{{0, "leaders"}, {64 * KiB, "wanstream", true}};
    static const std::vector<Band> reduce{{0, "leaders"}};  // every size: MagPIe's reduce
    static const std::vector<Band> allreduce{{0, "leaders"}, {64 * KiB, "multitree:seg=64K", true}};
    // Every size: each site's blocks cross each WAN link once; from 16 KiB a rank streamed in
    // 64 KiB segments, the in-site chain overlapping the WAN (das-4x32: 0.90x at 16 KiB, 0.82x
    // at 256 KiB of the unsegmented form; 1.23x the WAN bound at 64 KiB).
    static const std::vector<Band> allgather{{0, "leaders"}, {16 * KiB, "leaders:seg=64K"}};
    // Large gathers and scatters: every block straight between the root and its rank, all at
    // once (linear). Each block crosses the WAN once either way; a site leader's store-and-forward
    // (multilevel) only adds its LAN hop: under SMPI 1.01-1.11x SimGrid's own (karonis-grid worst),
    // while Open MPI's own posts one block after another (emulated das-4x2, 1 MiB: 2.1x / 2.5x
    // slower than linear for scatter / gather).
    static const std::vector<Band> gather{{0, ""}, {64 * KiB, "linear"}};
    static const std::vector<Band> scatter{{0, ""}, {256 * KiB, "linear"}};
    static const std::vector<Band> scan{{0, "leaders"}};
    // Each site's partial sums cross each WAN link once, only the part the far site receives: by
    // the site leaders for the smallest, from 1 KiB by every rank of a site (paired; das-4x32:
    // 0.86x, 0.76x, 0.77x of leaders at 1 KiB, 64 KiB, 1 MiB; 1.13x the cut bound at 1 MiB).
    static const std::vector<Band> reduce_scatter{{0, "leaders"}, {1 * KiB, "paired"}};
    // paired (one WAN message per site pair and column) only for the smallest blocks: on the
    // emulated das-4x2 (per rank, Open MPI's own = 1) 0.83x at 1 KiB, 1.04x at 1.5 KiB, 1.10x at
    // 2 KiB, 1.21x at 16 KiB, 1.91x at 32 KiB; under SMPI 1.004-1.014x from 2 KiB (das-8x16).
    // And only where a site holds three ranks or more: with two a WAN message merges two blocks,
    // which SMPI does not reward (das-4x2, 8 B-1.5 KiB: 1.000-1.003x SimGrid's own; 3 or 4 ranks
    // a site: 0.45x-0.9997x to 256 B) and the emulated das-4x2 did not show steadily (speed-ups
    // 0.97x-1.21x between runs).
    static const std::vector<Band> alltoall{{0, "paired", false, 3}, {1536, ""}, {64 * KiB, "linear"}};
    static const std::vector<Band> native{{0, ""}};
    switch (c) {
        case Collective::Barrier: return barrier;
        case Collective::Bcast: return bcast;
        case Collective::Reduce: return reduce;
        case Collective::Allreduce: return allreduce;
        case Collective::Allgather: return allgather;
        case Collective::Scan:
        case Collective::Exscan: return scan;
        case Collective::ReduceScatter:
        case Collective::ReduceScatterBlock: return reduce_scatter;
        case Collective::Allgatherv: return allgather;
        case Collective::Gather: return gather;
        case Collective::Scatter: return scatter;
        case Collective::Alltoall: return alltoall;
        default: return native;
    }
}

// Latency of the links at `level` (its level link, pair links and cluster links): smallest or largest.
std::optional<double> level_latency(const Topology& t, int level, bool largest) {
    std::optional<double> v;
    const auto take = [&](double x) { v = !v ? x : largest ? std::max(*v, x) : std::min(*v, x); };
    if (const auto l = t.link(level)) take(l->latency_s);
    if (level + 1 < t.levels())
        for (const auto& [a, b, l] : t.pair_links(level)) take(l.latency_s);
    for (const auto& [id, l] : t.cluster_links(level)) take(l.latency_s);
    return v;
}

// Whether `bytes` take at least one WAN latency on the fastest link between sites (the least
// latency and the most bandwidth of the sites' links); yes where the Topology lacks the numbers.
bool wan_bulk(const Topology& t, std::uint64_t bytes) {
    const std::optional<double> latency = level_latency(t, 0, false);
    double bandwidth = t.link(0) ? t.link(0)->bandwidth_Bps : 0.0;
    if (t.levels() > 1)
        for (const auto& [a, b, l] : t.pair_links(0)) bandwidth = std::max(bandwidth, l.bandwidth_Bps);
    return !latency || bandwidth <= 0 || static_cast<double>(bytes) >= *latency * bandwidth;
}

// The ranks of the Topology's largest site (level 1).
int largest_site(const Topology& t) {
    std::size_t n = 1;
    for (const auto& members : sites_at(t, 1).members) n = std::max(n, members.size());
    return static_cast<int>(n);
}

// How a collective's site leaders spread over co-leaders (coleaders*.cpp): the bytes of one
// leader's WAN message, the LAN hand-offs each co-leader costs, and the most co-leaders worth
// having. An allgather's leader sends its whole site's blocks; of its co-leaders two helped at
// every size (16-site grid: 0.84-0.98x of one leader at 256 B-16 KiB), three or four at some
// only, and the streamed form from 16 KiB is as fast.
struct Spread {
    std::uint64_t message;
    int hand_offs;
    int most;
};
std::optional<Spread> spread(const Topology& t, Collective c, std::uint64_t bytes) {
    switch (c) {
        case Collective::Allreduce:  // to each co-leader and back
        case Collective::Scan:       // the total to the senders; the receivers' runs to the first rank
        case Collective::Exscan: return Spread{bytes, 2, 8};
        case Collective::Bcast:
        case Collective::Reduce: return Spread{bytes, 1, 8};
        case Collective::Allgather: return Spread{bytes * static_cast<std::uint64_t>(largest_site(t)), 1, 2};
        default: return std::nullopt;
    }
}

std::string in_us(double seconds) { return format_number(seconds * 1e6, 4) + " us"; }

}  // namespace

std::optional<std::string> not_wan_sites(const Topology& t) {
    if (t.levels() < 2 || sites_at(t, 1).count() <= 1) return "one site";
    if (t.levels() == 2 && t.level_name(1) == "node") return "one site (its only split is into nodes)";
    const int level = 0;
    const std::optional<double> wan = level_latency(t, level, false);
    std::optional<double> lan;
    for (int k = level + 1; k < t.levels(); ++k)
        if (const auto l = level_latency(t, k, true)) lan = std::max(lan.value_or(0), *l);
    if (!wan || !lan || *wan >= kWanRatio * *lan) return std::nullopt;
    return "site links (" + in_us(*wan) + ") within " + std::to_string(static_cast<int>(kWanRatio)) +
           "x of the links below them (" + in_us(*lan) + ")";
}

bool wan_is_graph(const Topology& t) {
    const int level = site_level(t, 1);
    if (!t.site_network(level)) return false;
    const SiteGraph g = site_graph(t, sites_at(t, level), level);
    return g.from_platform && !uniform_mesh(g);
}

int leaders_per_site(const Topology& t, std::uint64_t bytes, int hand_offs) {
    const int C = sites_at(t, 1).count();
    if (C < 3 || t.levels() < 2) return 1;
    const LevelLink wan = t.link(0).value_or(LevelLink{}), lan = t.link(1).value_or(LevelLink{});
    if (wan.latency_s <= 0 || lan.bandwidth_Bps <= 0) return 1;
    const double m = static_cast<double>(bytes) / lan.bandwidth_Bps;  // one message through a node link
    // One message over its WAN link: a leader's messages run at once, so its node link limits only
    // where they add up to more than that (das-8x16's 1 MB/s WAN: never).
    const double over_wan = wan.bandwidth_Bps > 0 ? static_cast<double>(bytes) / wan.bandwidth_Bps : 0.0;
    const double hop = lan.latency_s;
    const auto cost = [C, m, over_wan, hop, hand_offs](int k) {  // a leader's messages, plus the hand-offs with k - 1 co-leaders
        return std::max(over_wan, static_cast<double>((C - 1 + k - 1) / k) * m) + (k > 1 ? hand_offs * ((k - 1) * m + hop) : 0.0);
    };
    int best = 1;
    for (int k = 2; k <= std::min(8, C - 1); ++k)
        if (cost(k) < cost(best)) best = k;
    return cost(1) - cost(best) >= 0.1 * wan.latency_s ? best : 1;
}

std::optional<Method> wan_method(const Topology& t, Collective c, std::uint64_t bytes, bool graph) {
    const char* text = "";
    const std::vector<Band>* on_graph = graph ? graph_bands(c) : nullptr;
    for (const Band& b : on_graph ? *on_graph : bands(c))
        if (bytes >= b.from && (!b.bulk || wan_bulk(t, bytes)) && (b.min_site == 0 || largest_site(t) >= b.min_site))
            text = b.method;
    if (*text == '\0') return std::nullopt;
    Method m = parse_method(c, text);
    if (m.algorithm == "leaders" && m.params.segment == 0)
        if (const auto sp = spread(t, c, bytes))
            if (const int k = std::min(sp->most, leaders_per_site(t, sp->message, sp->hand_offs)); k > 1)
                m = Method("coleaders", 0, k);
    return m;
}

}  // namespace gridcoll::detail
