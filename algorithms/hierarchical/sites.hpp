// The sites of a two-layer algorithm that treats each cluster of one Topology level as a site
// with several coordinators (the multi-tree broadcast and allreduce, the WAN-stream broadcast):
// the members of every site, in increasing rank order, sites ordered by their lowest rank; the
// windows and acknowledgements of their sends; and the shares of a message, equal or in
// proportion to the WAN links' bandwidth.
//
// Internal to algorithms/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::detail {

struct Sites {
    std::vector<std::vector<int>> members;  // per site
    std::vector<int> site_of;               // per rank
    int count() const { return static_cast<int>(members.size()); }
};

// The level whose clusters are the sites: `level` clamped to the Topology's deepest level.
inline int site_level(const Topology& t, int level) { return std::min(level, t.levels() - 1); }

// Sites = clusters at site_level(t, level); a rank whose depth ends above it is a site of its own.
Sites sites_at(const Topology& t, int level);

// The sites of the Topology's first level with more than one cluster ("the sites" of the
// latency-optimal leaders methods); `level` is set to that level.
Sites first_split(const Topology& t, int& level);

// The leader of site `site` (sites at `level`): `root` when the site holds it, else the site's
// gateway at that level ([P004]) when the Topology names one, else its lowest rank.
int site_leader(const Topology& t, const Sites& sites, int level, int site, int root = -1);

// Whether every site is one run of consecutive ranks; whether all sites have as many ranks.
bool sites_are_runs(const Sites& sites);
bool sites_equal_sized(const Sites& sites);

// The streamed form of the leaders' allgather (params.segment > 0, sites_are_runs).
Schedule allgather_leaders_streamed(const Request& r, const Sites& sites, int level);

// Runs of consecutive ranks among `members` (increasing): (first rank, count).
std::vector<std::pair<int, int>> runs_of(const std::vector<int>& members);

// Sends that keep at most `window` messages in flight on each channel: the k-th send on a
// channel waits for the (k - window)-th. A channel is a peer, or whatever `channel(peer)` maps
// peers to (the multi-tree broadcast: one per remote site, since its messages to one site share
// a WAN link whichever member they go to). SimGrid (and a real TCP link) shares a link between
// the messages in flight on it, so a sender that posts every segment at once delivers them all
// at the end and loses the pipelining; one or two in flight keeps it.
class WindowedSends {
public:
    using PeerMap = std::function<int(int peer)>;
    WindowedSends(Schedule& s, int window) : s_(s), window_([window](int) { return window; }) {}
    // Whether a message of `bytes` to `peer` is acknowledged (recv_acked): then the window
    // counts it in flight until its acknowledgement arrives, not until its send completes (a
    // send under MPI's eager limit completes at once, so no window would pace it).
    using Acked = std::function<bool(int peer, std::uint64_t bytes)>;
    // A window per peer, and optionally per channel instead of per peer.
    WindowedSends(Schedule& s, PeerMap window, PeerMap channel = {}, Acked acked = {})
        : s_(s), window_(std::move(window)), channel_(std::move(channel)), acked_(std::move(acked)) {}
    StepId send(int peer, Span src, std::initializer_list<StepId> deps);

private:
    Schedule& s_;
    PeerMap window_, channel_;
    Acked acked_;
    std::vector<std::pair<int, std::vector<StepId>>> sent_;  // per channel, its sends (or acknowledgements) in order
};

// The receive of a message that its sender acknowledges (WindowedSends' `acked`): the receive,
// then a zero-byte send back once it is done.
StepId recv_acked(Schedule& s, int peer, Span dst, std::initializer_list<StepId> deps = {});

// Shares of `bytes` in whole elements; share j is [offset(j), offset(j) + length(j)), `each` the
// largest. Equal, or (given positive weights, one per share) in proportion to them, the
// remainder's elements one each to the first shares.
struct Shares {
    std::uint64_t bytes, each;
    int count;
    std::vector<std::uint64_t> starts;  // weighted: offsets, and bytes at the end; empty: equal
    Shares(std::uint64_t total, int n, std::uint64_t elem, const std::vector<double>& weights = {})
        : bytes(total), count(n) {
        const std::uint64_t elems = total / elem;
        each = (elems + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n) * elem;
        if (weights.empty()) return;
        const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
        std::vector<std::uint64_t> len(static_cast<std::size_t>(n));
        std::uint64_t given = 0;
        for (std::size_t j = 0; j < len.size(); ++j) {
            len[j] = static_cast<std::uint64_t>(static_cast<double>(elems) * weights[j] / sum);
            given += len[j];
        }
        for (std::size_t j = 0; given < elems; j = (j + 1) % len.size(), ++given) ++len[j];
        starts.push_back(0);
        each = 0;
        for (std::uint64_t l : len) {
            starts.push_back(starts.back() + l * elem);
            each = std::max(each, l * elem);
        }
    }
    std::uint64_t offset(int j) const {
        return starts.empty() ? std::min(bytes, each * static_cast<std::uint64_t>(j))
                              : starts[static_cast<std::size_t>(j)];
    }
    std::uint64_t length(int j) const {
        return starts.empty() ? std::min(bytes, offset(j) + each) - offset(j)
                              : starts[static_cast<std::size_t>(j) + 1] - starts[static_cast<std::size_t>(j)];
    }
};

// Share weights for the WAN-parallel algorithms (multitree, wanstream).
// The WAN bandwidth between every two sites where the links differ (Topology::pair_link at the
// level above the sites), [a][b]; empty when they do not (no pair links there), when one is
// unknown, or when a site is not a cluster at that level.
std::vector<std::vector<double>> site_bandwidths(const Topology& t, const Sites& sites, int level);
// Share weights, or none (equal shares) when they are all alike.
std::vector<double> unless_equal(std::vector<double> w);
// The broadcast's share weights (empty: equal shares; site_bandwidths): share j, homed at site
// home[j], crosses the link from the root's site to it and then its links to every other
// non-root site, so it flows at most at the smallest of their bandwidths; shares in proportion
// to that finish together.
std::vector<double> bcast_share_weights(const std::vector<std::vector<double>>& b, int root_site,
                                        const std::vector<int>& home);

}  // namespace gridcoll::detail
