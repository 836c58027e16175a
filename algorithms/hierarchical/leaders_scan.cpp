// Site leaders that talk directly: the latency-optimal small-message scan (inclusive prefix),
// after MagPIe's direct exchange between sites ([MagPIe99]: Kielmann, Hofman, Bal, Plaat,
// Bhoedjang, "MagPIe: MPI's Collective Communication Operations for Clustered Wide Area
// Systems", PPoPP 1999; the sites are the Topology's first real split, as in leaders.cpp).
// Every site scans its own ranks (recursive doubling); the last rank of each site, which then
// holds its site's total, sends it straight to the first rank of every later site; that rank
// combines the earlier sites' totals in site order and broadcasts the result through its site
// (binomial), and each rank puts it in front of its own site prefix.
//
//   site s:  local scan (recursive doubling)            -> local prefix at every rank
//   WAN:     last(s) --total(s)--> first(t) for every site t > s  (one message per pair)
//   site t:  first(t): offset = total(0) op ... op total(t-1); binomial to the site;
//            out = offset op local prefix
//
// Operands keep rank order (non-commutative operations are fine): sites are whole runs of
// consecutive ranks. A Topology whose sites interleave ranks gets a flat recursive-doubling scan.
//
// Cost on C sites of n ranks, m bytes: log2(n) (L_l + m/B_l) for the local scan, one
// L_w + m/B_w (a last rank sends C - 1 messages, a first rank receives up to C - 1), then
// log2(n) (L_l + m/B_l): one WAN latency, where a chain over the sites pays C - 1.
//
// Several leaders per site (`coleaders:k=K`, for many sites whose node links, not the WAN,
// limit): a site's total leaves from the last ranks of its last k nodes (the last rank hands it
// to the other k - 1 first), site s's total to site t from sender (t - s - 1) mod k; it arrives
// at the first ranks of site t's first k nodes, receiver j taking the earlier sites of the j-th
// run of ceil(t / k), which it combines in site order and hands to the first rank, which
// combines the runs in order. Cost: one WAN latency plus two LAN hops, with ceil((C - 1) / k)
// WAN messages through the busiest node link instead of C - 1; the order is kept.
//
// exscan runs the same way with an exclusive local scan: the last rank of a site adds its own
// input to its exclusive prefix to get the site's total, the first rank of a site takes the
// earlier sites' total as its result, and rank 0 gets nothing (MPI leaves it undefined).
//
// References: [MagPIe99] (algorithms/REFERENCES.md).
#include <algorithm>
#include <map>
#include <vector>

#include "../core/builders.hpp"
#include "compose.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

bool runs_in_order(const Sites& sites) {
    int next = 0;
    for (const std::vector<int>& m : sites.members)
        for (int r : m)
            if (r != next++) return false;
    return true;
}

// This rank's position in `v`, or -1.
int position(const std::vector<int>& v, int rank) {
    const auto it = std::find(v.begin(), v.end(), rank);
    return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// Per site, the ranks that send its total over the WAN (the last rank of each of its last k
// nodes, its last rank first) and those that receive the earlier sites' totals (the first rank of
// each of its first k nodes, its first rank first). A rank below the site level is a node.
struct ScanLeaders {
    std::vector<std::vector<int>> senders, receivers;

    ScanLeaders(const Topology& t, const Sites& sites, int level, int k) {
        for (const std::vector<int>& m : sites.members) {
            std::map<int, std::pair<int, int>> nodes;  // node -> (first, last rank); ranks rise in a site
            for (int r : m) {
                const int node = t.depth(r) > level + 1 ? t.cluster(r, level + 1) : -1 - r;
                const auto [it, fresh] = nodes.emplace(node, std::pair{r, r});
                if (!fresh) it->second.second = r;
            }
            std::vector<std::pair<int, int>> order;
            for (const auto& [node, ends] : nodes) order.push_back(ends);
            std::sort(order.begin(), order.end());
            const int n = std::min(k, static_cast<int>(order.size()));
            std::vector<int> send, recv;
            for (int j = 0; j < n; ++j) {
                recv.push_back(order[static_cast<std::size_t>(j)].first);
                send.push_back(order[order.size() - 1 - static_cast<std::size_t>(j)].second);
            }
            senders.push_back(std::move(send));
            receivers.push_back(std::move(recv));
        }
    }
    // The earlier sites one receiver of site t takes: runs of ceil(t / k).
    int run(int t) const {
        const int k = static_cast<int>(receivers[static_cast<std::size_t>(t)].size());
        return (t + k - 1) / k;
    }
    // Who sends site s's total to site t, and who receives it there.
    int sender(int s, int t) const {
        const std::vector<int>& v = senders[static_cast<std::size_t>(s)];
        return v[static_cast<std::size_t>((t - s - 1) % static_cast<int>(v.size()))];
    }
    int receiver(int s, int t) const { return receivers[static_cast<std::size_t>(t)][static_cast<std::size_t>(s / run(t))]; }
};

// Slot `i` of `b` bytes from `first` on.
Span slot(Span first, int i, std::uint64_t b) { return Span{first.buf, first.off + static_cast<std::uint64_t>(i) * b, b}; }

// Receives one value from each of `peers` into slots and combines them in order; returns the sum.
Span receive_in_order(Composer& c, const std::vector<int>& peers, std::uint64_t b) {
    const Span slots = c.fresh_tmp(b * peers.size());
    for (std::size_t i = 0; i < peers.size(); ++i)
        c.add(Step{Op::Recv, Order::DstLeft, 0, peers[i], {}, slot(slots, static_cast<int>(i), b)});
    Span sum = slot(slots, 0, b);
    for (std::size_t i = 1; i < peers.size(); ++i) {  // sum(0..i) = sum(0..i-1) op value(i)
        const Span next = slot(slots, static_cast<int>(i), b);
        c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, sum, next});
        sum = next;
    }
    return sum;
}

// The site's total from its last rank to its other senders, and from each sender to the sites it
// faces. `total` is where the last rank holds it.
void send_total(Composer& c, const Request& r, const Sites& sites, const ScanLeaders& L, int site, Span total) {
    const std::vector<int>& send = L.senders[static_cast<std::size_t>(site)];
    const int i = position(send, r.rank);
    if (i < 0 || site + 1 == sites.count()) return;
    if (i == 0) {
        for (std::size_t j = 1; j < send.size(); ++j) c.add(Step{Op::Send, Order::DstLeft, 0, send[j], total, {}});
    } else {
        total = c.fresh_tmp(r.bytes);
        c.add(Step{Op::Recv, Order::DstLeft, 0, send[0], {}, total});
    }
    for (int t = site + 1; t < sites.count(); ++t)
        if (L.sender(site, t) == r.rank) c.add(Step{Op::Send, Order::DstLeft, 0, L.receiver(site, t), total, {}});
}

// The earlier sites' totals combined in site order at the first rank of site `site` (> 0), then
// broadcast through the site; returns where the sum lies.
Span earlier_sites(Composer& c, const Request& flat, const Sites& sites, const ScanLeaders& L, int site) {
    const std::vector<int>& mine = sites.members[static_cast<std::size_t>(site)];
    const std::vector<int>& recv = L.receivers[static_cast<std::size_t>(site)];
    const int j = position(recv, flat.rank), q = L.run(site);
    const std::uint64_t b = flat.bytes;
    Span sum{};  // the first rank's sum; a fresh span on the site's other ranks
    if (j >= 0 && j * q < site) {
        std::vector<int> from;  // the senders of my run of earlier sites
        for (int s = j * q; s < std::min(site, (j + 1) * q); ++s) from.push_back(L.sender(s, site));
        const Span mine_sum = receive_in_order(c, from, b);
        if (j > 0) {
            c.add(Step{Op::Send, Order::DstLeft, 0, recv[0], mine_sum, {}});
        } else {
            sum = mine_sum;  // my own run, then the other receivers' runs in order
            for (int x = 1; x < static_cast<int>(recv.size()) && x * q < site; ++x) {
                const Span next = c.fresh_tmp(b);
                c.add(Step{Op::Recv, Order::DstLeft, 0, recv[static_cast<std::size_t>(x)], {}, next});
                c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, sum, next});
                sum = next;
            }
        }
    }
    if (sum.len == 0) sum = c.fresh_tmp(b);
    if (mine.size() > 1) {
        Request bc = flat;
        bc.coll = Collective::Bcast;
        c.embed(build_for_group(bc, static_cast<int>(mine.size()), position(mine, flat.rank), 0, Method("binomial")), mine,
                Placement{sum, sum});
    }
    return sum;
}

// The sites, the flat request, and the leaders of a scan with `k` leaders per site; false when
// the sites are not runs of consecutive ranks in order (or nothing is to be sent).
struct ScanPlan {
    Sites sites;
    Request flat;
    int level = 0;
    bool ok() const { return runs_in_order(sites) && flat.bytes > 0; }
};

ScanPlan plan(const Request& r) {
    ScanPlan p;
    p.sites = first_split(*r.topology, p.level);
    p.flat = r;
    p.flat.topology = nullptr;
    return p;
}

Schedule scan_with(const Request& r, int k) {
    const ScanPlan p = plan(r);
    if (!p.ok()) return build_for_group(p.flat, r.size, r.rank, 0, Method("recursive-doubling"));
    const ScanLeaders L(*r.topology, p.sites, p.level, k);
    Schedule s(r.rank, r.size);
    Composer c(s);
    const int site = p.sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = p.sites.members[static_cast<std::size_t>(site)];
    const std::uint64_t b = r.bytes;
    const Span local = c.fresh_tmp(b);
    c.embed(build_for_group(p.flat, static_cast<int>(mine.size()), position(mine, r.rank), 0, Method("recursive-doubling")), mine,
            Placement{{Buf::In, 0, 0}, local});
    send_total(c, r, p.sites, L, site, local);  // the last rank's local prefix is its site's total
    c.add(Step{Op::Copy, Order::DstLeft, 0, -1, local, Span{Buf::Out, 0, b}});
    if (site == 0) return s;
    const Span sum = earlier_sites(c, p.flat, p.sites, L, site);
    c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, sum, Span{Buf::Out, 0, b}});
    return s;
}

Schedule exscan_with(const Request& r, int k) {
    const ScanPlan p = plan(r);
    if (!p.ok()) return build_for_group(p.flat, r.size, r.rank, 0, Method("recursive-doubling"));
    const ScanLeaders L(*r.topology, p.sites, p.level, k);
    Schedule s(r.rank, r.size);
    Composer c(s);
    const int site = p.sites.site_of[static_cast<std::size_t>(r.rank)];
    const std::vector<int>& mine = p.sites.members[static_cast<std::size_t>(site)];
    const int n = static_cast<int>(mine.size()), me = position(mine, r.rank);
    const std::uint64_t b = r.bytes;
    const Span in{Buf::In, 0, b}, out{Buf::Out, 0, b};
    const Span local = c.fresh_tmp(b);  // my exclusive prefix within the site (none at its first rank)
    if (n > 1) c.embed(build_for_group(p.flat, n, me, 0, Method("recursive-doubling")), mine, Placement{in, local});
    Span total = in;  // the site's total, at its last rank: my input after my exclusive prefix
    if (r.rank == mine.back() && n > 1 && site + 1 < p.sites.count()) {
        total = c.fresh_tmp(b);
        c.add(Step{Op::Copy, Order::DstLeft, 0, -1, in, total});
        c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, local, total});
    }
    send_total(c, r, p.sites, L, site, total);
    if (site == 0) {
        if (me > 0) c.add(Step{Op::Copy, Order::DstLeft, 0, -1, local, out});
        return s;
    }
    const Span sum = earlier_sites(c, p.flat, p.sites, L, site);
    c.add(Step{Op::Copy, Order::DstLeft, 0, -1, sum, out});
    if (me > 0) c.add(Step{Op::Reduce, Order::DstLeft, 0, -1, local, out});
    return s;
}

}  // namespace

Schedule scan_leaders(const Request& r) { return scan_with(r, 1); }
Schedule scan_coleaders(const Request& r) { return scan_with(r, std::max(1, r.params.fanout)); }
Schedule exscan_leaders(const Request& r) { return exscan_with(r, 1); }
Schedule exscan_coleaders(const Request& r) { return exscan_with(r, std::max(1, r.params.fanout)); }

}  // namespace gridcoll::detail
