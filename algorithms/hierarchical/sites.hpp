// The sites of a two-layer algorithm that treats each cluster of one Topology level as a site
// with several coordinators (the multi-tree broadcast and allreduce): the members of every
// site, in increasing rank order, sites ordered by their lowest rank.
//
// Internal to algorithms/.
#pragma once

#include <functional>
#include <vector>

#include "gridcoll/schedule.hpp"
#include "gridcoll/topology.hpp"

namespace gridcoll::detail {

struct Sites {
    std::vector<std::vector<int>> members;  // per site
    std::vector<int> site_of;               // per rank
    int count() const { return static_cast<int>(members.size()); }
};

// Sites = clusters at `level` (clamped to the Topology's deepest level); a rank whose depth ends
// above it is a site of its own.
Sites sites_at(const Topology& t, int level);

// Sends that keep at most `window` messages in flight to each peer: the k-th send to a peer
// waits for the (k - window)-th. SimGrid (and a real TCP link) shares a link between the
// messages in flight on it, so a sender that posts every segment at once delivers them all at
// the end and loses the pipelining; one or two in flight keeps it.
class WindowedSends {
public:
    WindowedSends(Schedule& s, int window) : s_(s), window_([window](int) { return window; }) {}
    // A window per peer.
    WindowedSends(Schedule& s, std::function<int(int peer)> window) : s_(s), window_(std::move(window)) {}
    StepId send(int peer, Span src, std::initializer_list<StepId> deps);

private:
    Schedule& s_;
    std::function<int(int)> window_;
    std::vector<std::pair<int, std::vector<StepId>>> sent_;  // per peer, its sends in order
};

}  // namespace gridcoll::detail
