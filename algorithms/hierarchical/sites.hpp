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

}  // namespace gridcoll::detail
