// The parts the multi-tree broadcast and allreduce share (multitree_bcast.cpp,
// multitree_allreduce.cpp): windows of segments in flight per link, acknowledged eager messages
// inside a site, chains and rings through a site, a site's two groups of coordinators, and the
// zero-byte "ready" messages that keep LAN transfers off a node while it uses the WAN
// (docs/design/multitree.md says why each is there and what it measured). Internal to
// algorithms/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "../core/builders.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "sites.hpp"

namespace gridcoll::detail::multitree {

// Segments in flight per link: `wan` (method key win, default 2) between sites, one inside a
// site. On a real WAN an MPI send of a 64 KiB segment completes only after the receiver's
// acknowledgement, so one in flight idles each link for a round trip per segment: Open MPI
// across the emulated das-4x2 (10 ms, 1 MB/s), 4 MiB, 64 KiB segments: allreduce 3.49 s with
// one, 2.75 s with two; broadcast 2.22 s / 2.08 s. SimGrid instead shares a link fairly between
// the messages on it, so there a second one delays the first (both arrive at the end): SMPI
// grid-32x32 broadcast 4 MiB, k = 1, 0.309 s with win=1, 0.448 s with win=2. Inside a site a
// round trip is tiny against a segment's transfer, so one is enough there.
inline constexpr int kSiteInFlight = 1;

// A message under MPI's eager limit (kEagerLimit) completes at once, so a window that waits for
// its send paces nothing. Inside a site such a message is acknowledged (site_recv), and the
// window waits for that: without it, segments held back by a gate all left at once and crossed
// each hop together (grid-32x32, 1 MiB, shares of 33 KB: 0.368 s without, 0.135 s with).
inline bool eager(std::uint64_t bytes) { return bytes > 0 && bytes < kEagerLimit; }

// With `acks`, eager messages inside the site are acknowledged (site_recv). Only where a link's
// data runs one way (chains, and rings of three or more): the acknowledgements share the reverse
// link's FIFO, and its own data, taken in another order at its two ends, would cross them.
inline WindowedSends site_windows(Schedule& s, const Sites& sites, int my_site, int wan, bool acks) {
    const auto site = [&sites](int peer) { return sites.site_of[static_cast<std::size_t>(peer)]; };
    return WindowedSends(
        s, [site, my_site, wan](int peer) { return site(peer) == my_site ? kSiteInFlight : wan; },
        [site, my_site](int peer) { return site(peer) == my_site ? peer : -1 - site(peer); },
        [site, my_site, acks](int peer, std::uint64_t bytes) { return acks && site(peer) == my_site && eager(bytes); });
}

// A receive from a member of my site, acknowledged as site_windows(..., acks) expects.
inline StepId site_recv(Schedule& s, bool acks, int peer, Span x, std::initializer_list<StepId> deps = {}) {
    return acks && eager(x.len) ? recv_acked(s, peer, x, deps) : s.recv(peer, x, deps);
}

// A chain through `ranks` that starts at index `start` (cyclically): position of `me` in it
// and its neighbours.
struct ChainPos {
    int offset = -1;  // -1: not in the chain
    int prev = -1, next = -1;
};
inline ChainPos chain_pos(const std::vector<int>& ranks, int start, int my_index) {
    ChainPos p;
    const int n = static_cast<int>(ranks.size());
    if (my_index < 0 || n == 0) return p;
    p.offset = (my_index - start + n) % n;
    if (p.offset > 0) p.prev = ranks[static_cast<std::size_t>((my_index - 1 + n) % n)];
    if (p.offset < n - 1) p.next = ranks[static_cast<std::size_t>((my_index + 1) % n)];
    return p;
}

inline int index_in(const std::vector<int>& v, int x) {
    const auto it = std::lower_bound(v.begin(), v.end(), x);
    return it != v.end() && *it == x ? static_cast<int>(it - v.begin()) : -1;
}

// The segment size for a share of `len` bytes: at least `seg`, evened out so that no short last
// segment pays a whole WAN latency of its own (a 135 KB share in 64 KiB segments would be 64 K,
// 64 K and 4 K; evened out, two of 66 K). Never below `seg`: under it a send can change protocol
// (SMPI sends under 64 KiB detached, so the WAN window no longer holds them back, and all of a
// share's segments shared the link: das-8x16, 16 MiB, 37 segments of 63.3 KiB took 8.75 s, 36
// of 65.0 KiB 3.23 s).
// Whole elements of `elem` bytes; 0 keeps it whole.
inline std::uint64_t even_segment(std::uint64_t len, std::uint64_t seg, std::uint64_t elem) {
    if (seg == 0 || len <= seg) return seg;
    const std::uint64_t count = len / seg;
    const std::uint64_t elems = (len / elem + count - 1) / count;
    return elems * elem;
}

// Zero bytes: the "ready" messages, and a step that joins others.
inline const Span kNothing{Buf::Out, 0, 0};

// One step that completes when all of `steps` have (a zero-byte copy); kNoStep for none.
inline StepId join(Schedule& s, const std::vector<StepId>& steps) {
    return steps.empty() ? kNoStep : s.add(Step{Op::Copy, Order::DstLeft, 0, -1, kNothing, kNothing}, steps);
}

// "Ready" messages that keep a LAN transfer off a node while it uses the WAN (the header says
// why): a zero-byte send to each of `tell` after step `after`, and the receive of one from each
// of `hear`, whose step `from(peer)` returns.
class Ready {
public:
    Ready(Schedule& s, const std::vector<int>& tell, StepId after, const std::vector<int>& hear) {
        for (int p : tell) s.send(p, kNothing, {after});
        for (int p : hear) got_.emplace_back(p, s.recv(p, kNothing));
    }
    StepId from(int peer) const {
        for (const auto& [p, id] : got_)
            if (p == peer) return id;
        return kNoStep;
    }

private:
    std::vector<std::pair<int, StepId>> got_;
};

inline void add_unique(std::vector<int>& v, int x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// A site's two groups, when split: A, the even site indices, and B, the odd ones. Of a share's
// `rounds` segments, A takes the first half and B the rest; a segment enters and leaves the site
// through the (j mod size)-th member of its group. The groups take turns on the WAN, so one can
// work inside the site while the other receives (site_rings). Unsplit (shares of one segment, or
// a site of one), A is the whole site and B is empty.
struct Groups {
    std::vector<int> a, b;  // ranks, in site order
    Groups(const std::vector<int>& site, std::uint64_t rounds) : first_b_((rounds + 1) / 2) {
        for (std::size_t i = 0; i < site.size(); ++i) (rounds > 1 && i % 2 == 1 ? b : a).push_back(site[i]);
    }
    bool in_b(std::uint64_t k) const { return !b.empty() && k >= first_b_; }
    int coordinator(int j, std::uint64_t k) const {
        const std::vector<int>& g = in_b(k) ? b : a;
        return g[static_cast<std::size_t>(j) % g.size()];
    }
    // Site index i: in B?, its place in its group, and (for an A member) its B partner's index
    // or -1.
    bool index_in_b(int i) const { return !b.empty() && i % 2 == 1; }
    int place(int i) const { return b.empty() ? i : i / 2; }
    int partner(int i) const {
        return !index_in_b(i) && !b.empty() && i + 1 < static_cast<int>(a.size() + b.size()) ? i + 1 : -1;
    }

private:
    std::uint64_t first_b_;
};

// The "ready" messages of a site in groups (site_rings, and the allreduce's phase 4): round
// the whole site once my WAN steps are done (when there is a B), and round A once A's are.
struct GroupReady {
    std::optional<Ready> site, a;
};
inline GroupReady group_ready(Schedule& s, const std::vector<int>& mine, int my_index, const Groups& g, StepId a_done,
                       StepId wan_done) {
    GroupReady r;
    const int n = static_cast<int>(mine.size());
    if (!g.b.empty())
        r.site.emplace(s, std::vector<int>{mine[static_cast<std::size_t>((my_index - 1 + n) % n)]}, wan_done,
                       std::vector<int>{mine[static_cast<std::size_t>((my_index + 1) % n)]});
    const int na = static_cast<int>(g.a.size()), place = g.place(my_index);
    if (!g.index_in_b(my_index) && na > 1)
        r.a.emplace(s, std::vector<int>{g.a[static_cast<std::size_t>((place - 1 + na) % na)]}, a_done,
                    std::vector<int>{g.a[static_cast<std::size_t>((place + 1) % na)]});
    return r;
}

}  // namespace gridcoll::detail::multitree
