// The site leaders' allgather for large blocks (`leaders:seg=S`), streamed: the bandwidth-optimal
// WAN form of the allgather (and allgatherv). As in leaders_allgather.cpp (MagPIe's shape,
// [MagPIe99]: Kielmann, Hofman, Bal, Plaat, Bhoedjang, "MagPIe: MPI's Collective Communication
// Operations for Clustered Wide Area Systems", PPoPP 1999) every site's blocks gather at its
// leader and cross each WAN link once, leader to leader, every link at once; here they cross in
// segments of S bytes, at most two in flight per link (WindowedSends: a link shared by many
// messages delivers them all at the end), and every segment goes on down a chain through the
// site as soon as it is in — the LAN distribution overlaps the WAN transfer instead of following
// it. The chain takes the segments round-robin over the sites, the order they arrive in.
//
//   site s:  members --LAN--> leader(s)                      (its n blocks)
//   WAN:     leader(s) --segments--> leader(t), every t      (the site's blocks, once per link)
//   site s:  leader(s) -> m1 -> m2 -> ... -> m(n-1)          (every segment, as it arrives)
//
// Cost on C sites of n ranks, blocks of m bytes: (n-1) m / B_l to gather, then the WAN bound
// L_w + n m / B_w (each link carries one site's blocks) while the chain moves P m / B_l, plus
// (n-1)(L_l + S / B_l) to fill it: about the WAN bound where B_l >> B_w. Needs every site to be
// one run of consecutive ranks (else: leaders_allgather.cpp's unsegmented form).
//
// References: [MagPIe99], [P004] (algorithms/REFERENCES.md).
#include <algorithm>
#include <vector>

#include "../core/builders.hpp"
#include "sites.hpp"

namespace gridcoll::detail {

namespace {

class Streamed {
public:
    Streamed(const Request& req, Schedule& sched, const Sites& st, int lvl)
        : r(req), s(sched), sites(st), level(lvl), seg(req.params.segment), out(sched, 2) {}

    void build();

private:
    const Request& r;
    Schedule& s;
    const Sites& sites;
    int level;
    std::uint64_t seg;
    WindowedSends out;

    Span site_block(int t) const {
        const std::vector<int>& m = sites.members[static_cast<std::size_t>(t)];
        const std::uint64_t at = block_offset(r, m.front());
        return Span{Buf::Out, at, block_offset(r, m.back() + 1) - at};
    }
    int segments(int t) const {
        const std::uint64_t len = site_block(t).len;
        return len == 0 ? 0 : static_cast<int>((len + seg - 1) / seg);
    }
    Span segment(int t, int k) const {
        const Span b = site_block(t);
        const std::uint64_t at = static_cast<std::uint64_t>(k) * seg;
        return Span{Buf::Out, b.off + at, std::min(seg, b.len - at)};
    }
    int leader(int t) const { return site_leader(*r.topology, sites, level, t); }

    // The leader: its site's blocks gathered; returns the steps that bring them in.
    std::vector<StepId> gather(const std::vector<int>& mine) {
        std::vector<StepId> done;
        const std::uint64_t b = block_bytes(r, r.rank);
        done.push_back(s.copy(Span{Buf::In, 0, b}, Span{Buf::Out, block_offset(r, r.rank), b}));
        for (int q : mine)
            if (q != r.rank) done.push_back(s.recv(q, Span{Buf::Out, block_offset(r, q), block_bytes(r, q)}));
        return done;
    }

    void build_here() {
        const int my_site = sites.site_of[static_cast<std::size_t>(r.rank)];
        const std::vector<int>& mine = sites.members[static_cast<std::size_t>(my_site)];
        const int lead = leader(my_site);
        // written[t][k]: the step that put segment k of site t's blocks here.
        std::vector<std::vector<StepId>> written(static_cast<std::size_t>(sites.count()));
        for (int t = 0; t < sites.count(); ++t) written[static_cast<std::size_t>(t)].assign(static_cast<std::size_t>(segments(t)), kNoStep);
        if (r.rank != lead) {
            s.send(lead, Span{Buf::In, 0, block_bytes(r, r.rank)});
        } else {
            own_ready_ = gather(mine);
            // WAN: my site's segments to every other leader, round-robin over the links.
            for (int k = 0; k < segments(my_site); ++k)
                for (int t = 0; t < sites.count(); ++t)
                    if (t != my_site) send_after(leader(t), segment(my_site, k), own_ready_);
            for (int t = 0; t < sites.count(); ++t)
                if (t != my_site)
                    for (int k = 0; k < segments(t); ++k)
                        written[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] = s.recv(leader(t), segment(t, k));
        }
        chain(mine, lead, my_site, written);
    }

    // A send that waits for every step in `deps` (joined by an empty copy) and for the window.
    void send_after(int peer, Span sp, const std::vector<StepId>& deps) {
        if (joined_ == kNoStep || joined_for_ != &deps) {
            joined_ = deps.size() == 1 ? deps[0] : s.add(Step{Op::Copy, Order::DstLeft, 0, -1, {Buf::Out, 0, 0}, {Buf::Out, 0, 0}}, deps);
            joined_for_ = &deps;
        }
        out.send(peer, sp, {joined_});
    }

    // Every segment down the chain leader -> the others in rank order, round-robin over sites.
    void chain(const std::vector<int>& mine, int lead, int my_site, const std::vector<std::vector<StepId>>& written) {
        std::vector<int> order{lead};
        for (int q : mine)
            if (q != lead) order.push_back(q);
        const auto me = static_cast<std::size_t>(std::find(order.begin(), order.end(), r.rank) - order.begin());
        if (order.size() < 2) return;
        int rounds = 0;
        for (int t = 0; t < sites.count(); ++t) rounds = std::max(rounds, segments(t));
        for (int k = 0; k < rounds; ++k)
            for (int i = 0; i < sites.count(); ++i) {
                const int t = (my_site + i) % sites.count();  // my own site's segments first
                if (k >= segments(t)) continue;
                const Span sp = segment(t, k);
                StepId have = kNoStep;
                if (me > 0) {
                    have = s.recv(order[me - 1], sp);
                } else if (t != my_site) {
                    have = written[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)];
                }
                if (me + 1 >= order.size()) continue;
                if (me == 0 && t == my_site) send_after(order[1], sp, own_ready_);
                else out.send(order[me + 1], sp, {have});
            }
    }

    std::vector<StepId> own_ready_;
    StepId joined_ = kNoStep;
    const std::vector<StepId>* joined_for_ = nullptr;
};

void Streamed::build() { build_here(); }

}  // namespace

bool sites_are_runs(const Sites& sites) {
    for (const std::vector<int>& m : sites.members)
        if (m.back() - m.front() + 1 != static_cast<int>(m.size())) return false;
    return true;
}

Schedule allgather_leaders_streamed(const Request& r, const Sites& sites, int level) {
    Schedule s(r.rank, r.size);
    Streamed a(r, s, sites, level);
    a.build();
    return s;
}

}  // namespace gridcoll::detail
