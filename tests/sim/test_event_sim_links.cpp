// The schedule event simulator (sim/include/gridcoll/event_sim.hpp) with links: WAN links shared
// between a cluster pair's messages (max-min fair, cross-traffic, a pair's order kept), synchronous
// sends and the rendezvous, bench timing, per-pair and per-machine parameters, broken schedules
// and bad input reported, routes whose every link is shared.
#include "event_sim_fixtures.hpp"

// SimOptions::shared_link_levels: two clusters {0, 1, 2} and {3, 4, 5}. Ranks 0 and 1 each send
// m bytes across the WAN (to 3 and 4), rank 5 sends back (to 2), all at time 0. Without links
// every message takes L_w + g_w; with one link per cluster pair and direction, ranks 0's and 1's
// messages share the 0 -> 1 link fairly, so both arrive at L_w + 2 g_w; rank 5's uses the other
// direction's link alone. A LAN message (rank 2 -> 0) is untouched.
Schedule cross(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, r.bytes};
    switch (r.rank) {
        case 0: s.send(3, b); s.recv(2, b); break;
        case 1: s.send(4, b); break;
        case 2: s.send(0, b, {s.recv(5, b)}); break;
        case 3: s.recv(0, b); break;
        case 4: s.recv(1, b); break;
        default: s.send(2, b); break;
    }
    return s;
}

namespace {

// The test schedule `build` broadcasting m bytes on `topo` (levels wan and lan: wan() and
// lan()), every rank's finish time recorded, the WAN's links shared or not.
sim::SimResult on_wan_and_lan(const Topology& topo, Builder build, std::uint64_t m, bool shared_wan, double cross = 0) {
    const std::vector<PLogPParams> two{wan(), lan()};
    const Algorithm alg{.coll = Collective::Bcast, .name = "test", .build = build, .description = "test"};
    const sim::LevelMap map(topo);
    sim::SimOptions opt;
    opt.per_rank_finish = true;
    opt.shared_link_levels = shared_wan ? 1 : 0;  // bit 0: level 0, the WAN
    opt.cross_traffic = cross;
    return sim::simulate(bcast(topo.size(), m, 0), alg, nullptr, &map, std::span<const PLogPParams>(two), opt);
}

}  // namespace

TEST(EventSim, SharedLinksSerialiseAClusterPair) {
    const Topology topo = two_clusters(6);
    const std::vector<PLogPParams> two{wan(), lan()};
    const Algorithm alg{.coll = Collective::Bcast, .name = "cross", .build = cross, .description = "test"};
    const sim::LevelMap map(topo);
    for (std::uint64_t m : {1000ull, 200000ull}) {
        const double dm = static_cast<double>(m);
        const double Lw = wan().L, gw = wan().g(dm), Ll = lan().L, gl = lan().g(dm);
        const auto off = on_wan_and_lan(topo, cross, m, false);
        expect_rel(off.finish[3], Lw + gw, "no links: rank 3");
        expect_rel(off.finish[4], Lw + gw, "no links: rank 4");
        const auto on = on_wan_and_lan(topo, cross, m, true);
        expect_rel(on.finish[3], Lw + 2 * gw, "links: rank 3 shares the link with rank 4");
        expect_rel(on.finish[4], Lw + 2 * gw, "links: rank 4 shares the link with rank 3");
        // Rank 2 gets rank 5's message over the other direction's link, then sends on the LAN.
        expect_rel(on.finish[0], Lw + gw + Ll + gl, "links: rank 0 (reverse link free, LAN untouched)");
        expect_rel(on.time, Lw + 2 * gw, "links: completion");
    }
    // Errors: no topology, or no level below the link level.
    sim::SimOptions bad;
    bad.shared_link_levels = 1;
    const std::vector<PLogPParams> flat{lan()};
    EXPECT_THROW(sim::simulate(bcast(6, 8, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(flat), bad), Error);
    bad.shared_link_levels = 2;  // level 1, the deepest of two_clusters
    try {
        sim::simulate(bcast(6, 8, 0), alg, nullptr, &map, std::span<const PLogPParams>(two), bad);
        ADD_FAILURE() << "shared links at the deepest level accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("need a level below it"), std::string::npos) << e.what();
    }
}

// SimOptions::cross_traffic x, on the schedule `cross` above: the link 0 -> 1 carries two
// messages, its other direction one. Each of the two progresses at 1/(2 + x) of the rate, rank
// 5's at 1/(1 + 2x), so it leaves first, at (1 + 2x) g; the two then have 1/2 each for their
// remaining (1 - (1 + 2x)/(2 + x)) g: they leave at (4 + 3x + 2x^2)/(2 + x) g.
TEST(EventSim, SharedLinksCrossTrafficLoadsTheOtherDirection) {
    const Topology topo = two_clusters(6);
    const std::uint64_t m = 200000;
    const double Lw = wan().L, g = wan().g(static_cast<double>(m)), Ll = lan().L, gl = lan().g(static_cast<double>(m));
    for (double x : {0.05, 0.5}) {
        const auto res = on_wan_and_lan(topo, cross, m, true, x);
        const std::string at = "x = " + std::to_string(x) + ": ";
        expect_rel(res.finish[3], Lw + (4 + 3 * x + 2 * x * x) / (2 + x) * g, at + "rank 3 (two on its link, one back)");
        expect_rel(res.finish[4], Lw + (4 + 3 * x + 2 * x * x) / (2 + x) * g, at + "rank 4");
        expect_rel(res.finish[0], Lw + (1 + 2 * x) * g + Ll + gl, at + "rank 0 (rank 5's message, then rank 2's on the LAN)");
    }
    // Zero: the directions are independent (SharedLinksSerialiseAClusterPair's times).
    const auto none = on_wan_and_lan(topo, cross, m, true, 0);
    expect_rel(none.finish[3], Lw + 2 * g, "x = 0: rank 3");
    expect_rel(none.finish[0], Lw + g + Ll + gl, "x = 0: rank 0");
}

// SimOptions::shared_link_levels: the ports of ranks beside a shared link are their own
// network's. Four clusters {0, 1}, {2, 3}, {4, 5}, {6, 7}. Rank 0 sends to 2 and to 4 (two links
// out of its cluster); ranks 5 and 7 both send to 3 (two links into one rank), all at time 0. With
// shared links the second send leaves rank 0 once its LAN port is free, and rank 3 takes the
// second message a LAN gap after the first; without them each waits a whole WAN gap.
Schedule fan(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, r.bytes};
    switch (r.rank) {
        case 0: s.send(2, b); s.send(4, b); break;
        case 2: s.recv(0, b); break;
        case 3: s.recv(5, b); s.recv(7, b); break;
        case 4: s.recv(0, b); break;
        case 5: case 7: s.send(3, b); break;
        default: break;
    }
    return s;
}

TEST(EventSim, SharedLinksFreeTheRanksPorts) {
    std::vector<std::vector<int>> ids;
    for (int r = 0; r < 8; ++r) ids.push_back({0, r / 2});
    const Topology topo(std::move(ids), {"wan", "lan"});
    const std::uint64_t m = 200000;  // the LAN gap (about 1.8 ms) exceeds every overhead
    const double dm = static_cast<double>(m);
    const double Lw = wan().L, gw = wan().g(dm), gl = lan().g(dm);
    const auto off = on_wan_and_lan(topo, fan, m, false);
    expect_rel(off.finish[2], Lw + gw, "no links: rank 2");
    expect_rel(off.finish[4], gw + Lw + gw, "no links: rank 0's second send waits for its WAN gap");
    expect_rel(off.finish[3], Lw + 2 * gw, "no links: rank 3's second message waits a WAN gap");
    const auto on = on_wan_and_lan(topo, fan, m, true);
    expect_rel(on.finish[2], Lw + gw, "links: rank 2");
    expect_rel(on.finish[4], gl + Lw + gw, "links: rank 0's second send leaves after its LAN gap");
    expect_rel(on.finish[3], Lw + gw + gl, "links: rank 3 takes the second message a LAN gap later");
}

// SimOptions::shared_link_levels: rank 0 sends a large then a small message to rank 3 across
// the WAN, both in flight at once. They share the link, so the small one is done first; it
// must not overtake (MPI's order: rank 3's receives match them in order), so both arrive when
// the large one has left: g(large) + g(small) of the link after the first entered, + L.
// (A message held in FIFO behind its pair, or one that overtook, would arrive at other times.)
Schedule big_then_small(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span big{Buf::Out, 0, r.bytes}, small{Buf::Out, 0, 1000};
    if (r.rank == 0) {
        s.send(3, big);
        s.send(3, small);
    } else if (r.rank == 3) {
        s.recv(0, big);
        s.recv(0, small);
    }
    return s;
}

TEST(EventSim, SharedLinksKeepAPairsOrder) {
    const std::uint64_t m = 200000;
    const auto res = on_wan_and_lan(two_clusters(6), big_then_small, m, true);
    // The small one enters a LAN port gap (or the send overhead) after the large one.
    const double enter2 = std::max(wan().os(static_cast<double>(m)), lan().g(static_cast<double>(m)));
    const double gw = wan().g(static_cast<double>(m)), gs = wan().g(1000.0);
    ASSERT_LT(enter2 + 2 * gs, gw);  // the small one is done while the large one is still on the link
    // (Rank 3 then takes the small one after the large one's receive overhead.)
    expect_rel(res.finish[3], gw + gs + wan().L + wan().or_(static_cast<double>(m)), "both arrive when the large one has left");
}

// SimOptions::synchronous_sends: rank 0 sends to 1, then (once that send has completed) to 2,
// all in one cluster. Asynchronous: the second send starts when the first completes, at
// os(m), but no earlier than the port's gap g(m), so rank 2 finishes at g + L + g. Synchronous:
// the first send completes when its message arrives (L + g), so rank 2 finishes at 2 (L + g).
Schedule chained(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, r.bytes};
    if (r.rank == 0) s.send(2, b, {s.send(1, b)});
    else s.recv(0, b);
    return s;
}

TEST(EventSim, SynchronousSendsCompleteOnArrival) {
    const Algorithm alg{.coll = Collective::Bcast, .name = "chained", .build = chained, .description = "test"};
    const std::vector<PLogPParams> one{wan()};
    for (std::uint64_t m : {1000ull, 200000ull}) {
        const double dm = static_cast<double>(m);
        const double L = wan().L, g = wan().g(dm);
        sim::SimOptions opt;
        opt.per_rank_finish = true;
        const auto async = sim::simulate(bcast(3, m, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(one), opt);
        expect_rel(async.finish[1], L + g, "async: first message");
        expect_rel(async.finish[2], g + L + g, "async: the port's gap separates the sends");
        opt.synchronous_sends = true;
        const auto sync = sim::simulate(bcast(3, m, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(one), opt);
        expect_rel(sync.finish[1], L + g, "sync: first message");
        expect_rel(sync.finish[0], 2 * (L + g), "sync: the root's second send completes on arrival");
        expect_rel(sync.finish[2], 2 * (L + g), "sync: the second send starts when the first has arrived");
        // With a threshold (SMPI's detached sends): only messages of at least it are synchronous.
        opt.synchronous_from = 65536;
        const auto from = sim::simulate(bcast(3, m, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(one), opt);
        expect_rel(from.finish[2], m >= 65536 ? 2 * (L + g) : g + L + g, "sync from 64 KiB");
    }
}

// SimOptions::bench_timing, by hand on two ranks (one WAN level, linear broadcast of m bytes):
// the root's "go" leaves at 0 and its send completes at os(0), which starts the clock; the data
// then leaves at the port's gap g(0) and arrives at g(0) + L + g(m), after the "go" (L + g(0));
// rank 1's report arrives L + g(0) after that. Measured: 2 g(0) + 2L + g(m) - os(0), where the
// collective alone takes L + g(m).
TEST(EventSim, BenchTimingAddsTheReleaseAndTheReports) {
    const std::vector<PLogPParams> one{wan()};
    for (std::uint64_t m : {1000ull, 200000ull}) {
        const double L = wan().L, g0 = wan().g(0), os0 = wan().os(0);
        const double alone = sim_time(bcast(2, m, 0), "linear", one);
        sim::SimOptions opt;
        opt.bench_timing = true;
        expect_rel(sim_time(bcast(2, m, 0), "linear", one, nullptr, opt), alone + L + 2 * g0 - os0,
                   "m=" + std::to_string(m));
    }
}

// Around a hierarchical schedule, for every root: the run completes (every release and report
// matched), and a report from the other cluster adds at least the WAN latency.
TEST(EventSim, BenchTimingWrapsEveryRankAsRoot) {
    const int P = 8;
    const Topology topo = two_clusters(P);
    const std::vector<PLogPParams> levels{wan(), lan()};
    for (int root = 0; root < P; ++root) {
        Request r = bcast(P, 300000, 65536, root);
        const double alone = sim_time(r, "multitree", levels, &topo);
        sim::SimOptions opt;
        opt.bench_timing = true;
        const double timed = sim_time(r, "multitree", levels, &topo, opt);
        EXPECT_GE(timed, alone + wan().L) << "root " << root;
        EXPECT_LE(timed, alone + 3 * wan().L) << "root " << root;
    }
}

// WAN links that differ (ParamSet::pairs, an explicit WAN): three sites of one rank each, the
// WAN level with no parameters of its own, site 0's links to sites 1 and 2 with their own. A
// linear broadcast from rank 0 sends to 1, then to 2 once its port is free: rank 1 has the
// message at L1 + g1(m), rank 2 at g1(m) + L2 + g2(m). Without the pair 1-2 the level is
// incomplete: an error naming the two clusters.
TEST(EventSim, PairParamsPriceEachSitePairsLink) {
    std::vector<std::vector<int>> c{{0, 0, 0}, {0, 1, 1}, {0, 2, 2}};
    const Topology topo(std::move(c), {"wan", "site", "node"});
    PLogPParams slow = wan();
    slow.L = 9e-3;
    slow.g = SizeFunction::affine(50e-6, 1.0 / 3e6);
    model::ParamSet ps;
    ps.origin = "test";
    ps.levels.resize(3);
    ps.levels[1].plogp = lan();
    ps.levels[2].plogp = lan();
    ps.pairs.push_back({0, 0, 1, {}});
    ps.pairs.back().params.plogp = wan();
    ps.pairs.push_back({0, 2, 0, {}});  // either order
    ps.pairs.back().params.plogp = slow;
    ps.pairs.push_back({0, 1, 2, {}});
    ps.pairs.back().params.plogp = slow;
    sim::SimOptions opt;
    opt.per_rank_finish = true;
    for (std::uint64_t m : {1000ull, 200000ull}) {
        const double x = static_cast<double>(m);
        const auto res = sim::simulate(bcast(3, m, 0), "linear", &topo, ps, sim::ModelKind::PLogP, opt);
        expect_rel(res.finish[1], wan().L + wan().g(x), "rank 1, m=" + std::to_string(m));
        expect_rel(res.finish[2], wan().g(x) + slow.L + slow.g(x), "rank 2, m=" + std::to_string(m));
    }
    ps.pairs.pop_back();
    try {
        sim::simulate(bcast(3, 1000, 0), "linear", &topo, ps);
        FAIL() << "a WAN level without parameters between sites 1 and 2 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("between its clusters 1 and 2"), std::string::npos) << e.what();
    }
}

// Clusters whose links differ (ParamSet::clusters: karonis-grid's machines): two machines of two
// ranks, the machine level with no parameters of its own; rank 0 sends to 1 and rank 2 to 3,
// each pair priced by its machine's link: L + g(m) of machine 0, and of machine 1. Without
// machine 1's parameters the level is incomplete: an error naming the cluster.
Schedule within_machines(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, r.bytes};
    if (r.rank % 2 == 0)
        s.send(r.rank + 1, b);
    else
        s.recv(r.rank - 1, b);
    return s;
}

TEST(EventSim, ClusterParamsPriceEachMachinesLink) {
    std::vector<std::vector<int>> c{{0, 0}, {0, 0}, {0, 1}, {0, 1}};
    const Topology topo(std::move(c), {"wan", "machine"});
    const sim::LevelMap map(topo);
    PLogPParams fast = lan();
    fast.L = 5e-6;
    fast.g = SizeFunction::affine(2e-6, 1.0 / 150e6);
    const std::vector<PLogPParams> levels{wan(), PLogPParams{}};  // the machine level: none of its own
    const std::vector<sim::ClusterParams<PLogPParams>> machines{{1, 0, lan()}, {1, 1, fast}};
    const Algorithm alg{.coll = Collective::Bcast, .name = "pairs", .build = within_machines, .description = "test"};
    sim::SimOptions opt;
    opt.per_rank_finish = true;
    for (std::uint64_t m : {1000ull, 200000ull}) {
        const double x = static_cast<double>(m);
        const auto res = sim::simulate(bcast(4, m, 0), alg, &topo, &map, std::span<const PLogPParams>(levels), opt, {},
                                       std::span<const sim::ClusterParams<PLogPParams>>(machines));
        expect_rel(res.finish[1], lan().L + lan().g(x), "machine 0, m=" + std::to_string(m));
        expect_rel(res.finish[3], fast.L + fast.g(x), "machine 1, m=" + std::to_string(m));
    }
    // Through a ParamSet the machine level must be covered: an error naming the cluster.
    model::ParamSet ps;
    ps.origin = "test";
    ps.levels.resize(2);
    ps.levels[0].plogp = wan();
    ps.clusters.push_back({1, 0, {}});
    ps.clusters.back().params.plogp = lan();
    try {
        sim::simulate(bcast(4, 1000, 0), "linear", &topo, ps);
        FAIL() << "a machine level without parameters for machine 1 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cluster 1"), std::string::npos) << e.what();
    }
    ps.clusters.push_back({1, 1, {}});
    ps.clusters.back().params.plogp = fast;
    EXPECT_NO_THROW(sim::simulate(bcast(4, 1000, 0), "linear", &topo, ps));
}

// Broken schedules (built outside the registry) give errors that name the ranks involved.
Schedule deadlock(const Request& r) {  // both ranks wait for the other
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, 8};
    const StepId got = s.recv(1 - r.rank, b);
    s.send(1 - r.rank, b, {got});
    return s;
}
Schedule extra_send(const Request& r) {  // rank 0 sends twice, rank 1 receives once
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, 8};
    if (r.rank == 0) {
        s.send(1, b);
        s.send(1, b);
    } else {
        s.recv(0, b);
    }
    return s;
}
Schedule size_mismatch(const Request& r) {  // 8 bytes sent, 4 expected
    Schedule s(r.rank, r.size);
    if (r.rank == 0)
        s.send(1, Span{Buf::Out, 0, 8});
    else
        s.recv(0, Span{Buf::Out, 0, 4});
    return s;
}

TEST(EventSim, BrokenSchedulesAreReported) {
    const std::vector<PLogPParams> flat{lan()};
    const auto expect_error = [&](Builder b, const std::string& want) {
        const Algorithm alg{.coll = Collective::Bcast, .name = "broken", .build = b, .description = "test"};
        try {
            sim::simulate(bcast(2, 8, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(flat));
            ADD_FAILURE() << "no error, expected one containing '" << want << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
        }
    };
    expect_error(deadlock, "stuck");
    expect_error(extra_send, "sends more messages to rank 1");
    expect_error(size_mismatch, "expects 4");
}

// SimOptions::rendezvous, by hand (one level, m bytes each): rank 0 sends to 2, then to 1;
// rank 2 forwards to 1; rank 1 posts its receive from 0 only after the one from 2 (at 2L + 2g).
// Rank 0's send to 1 starts at g and, synchronous, completes on arrival at L + 2g; under the
// rendezvous its transfer waits for that post: 3L + 3g, when rank 1 has it too. A detached
// (not synchronous) send completes at once, g + os(m), but its message still waits. Matching a
// message too many or too large is still reported, now at its envelope.
Schedule late_receiver(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, r.bytes};
    if (r.rank == 0) {
        s.send(2, b);
        s.send(1, b);
    } else if (r.rank == 2) {
        s.send(1, b, {s.recv(0, b)});
    } else {
        s.recv(0, b, {s.recv(2, b)});
    }
    return s;
}

TEST(EventSim, RendezvousWaitsForTheReceivePost) {
    const std::vector<PLogPParams> one{wan()};
    const Algorithm alg{.coll = Collective::Bcast, .name = "late", .build = late_receiver, .description = "test"};
    for (std::uint64_t m : {1000ull, 200000ull}) {
        const double L = wan().L, g = wan().g(static_cast<double>(m));
        sim::SimOptions opt;
        opt.synchronous_sends = true;
        opt.per_rank_finish = true;
        const auto eager = sim::simulate(bcast(3, m, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(one), opt);
        expect_rel(eager.finish[0], L + 2 * g, "synchronous, m=" + std::to_string(m));
        opt.rendezvous = true;
        const auto rdv = sim::simulate(bcast(3, m, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(one), opt);
        expect_rel(rdv.finish[0], 3 * L + 3 * g, "rendezvous, m=" + std::to_string(m));
        expect_rel(rdv.finish[1], 3 * L + 3 * g, "rendezvous, rank 1, m=" + std::to_string(m));
        opt.synchronous_sends = false;
        const auto detached = sim::simulate(bcast(3, m, 0), alg, nullptr, nullptr, std::span<const PLogPParams>(one), opt);
        expect_rel(detached.finish[0], g + wan().os(static_cast<double>(m)), "detached, m=" + std::to_string(m));
        expect_rel(detached.finish[1], 3 * L + 3 * g, "detached, rank 1, m=" + std::to_string(m));
    }
    sim::SimOptions rdv;
    rdv.rendezvous = true;
    const std::vector<PLogPParams> flat{lan()};
    for (const auto& [b, want] : {std::pair<Builder, std::string>{extra_send, "sends more messages to rank 1"},
                                  {size_mismatch, "expects 4"}}) {
        const Algorithm broken{.coll = Collective::Bcast, .name = "broken", .build = b, .description = "test"};
        try {
            sim::simulate(bcast(2, 8, 0), broken, nullptr, nullptr, std::span<const PLogPParams>(flat), rdv);
            ADD_FAILURE() << "no error, expected one containing '" << want << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
        }
    }
}

TEST(EventSim, ErrorsAreClear) {
    const std::vector<PLogPParams> flat{lan()};
    const std::vector<PLogPParams> none;
    try {
        sim::simulate(bcast(4, 10, 0), "no-such-algorithm", nullptr, std::span<const PLogPParams>(flat));
        FAIL() << "unknown algorithm accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("binomial"), std::string::npos) << e.what();
    }
    EXPECT_THROW(sim::simulate(bcast(4, 10, 0), "binomial", nullptr, std::span<const PLogPParams>(none)), Error);
    const Topology topo = two_clusters(4);
    EXPECT_THROW(sim::simulate(bcast(4, 10, 0), "binomial", &topo, std::span<const PLogPParams>(flat)), Error);
    EXPECT_THROW(sim::simulate(bcast(5, 10, 0), "binomial", &topo, std::span<const PLogPParams>(flat)), Error);
    model::ParamSet ps;
    ps.levels.resize(1);
    ps.origin = "test";
    EXPECT_THROW(sim::simulate(bcast(4, 10, 0), "binomial", nullptr, ps), Error);
    ps.levels[0].plogp = lan();
    EXPECT_NO_THROW(sim::simulate(bcast(4, 10, 0), "binomial", nullptr, ps));
    EXPECT_THROW(sim::LevelMap::regular(10, {10, 3, 2}), Error);
}

// SimOptions::shared_link_levels on a Topology whose sites have a network (SiteNetwork): a
// message rides every link of its route and shares each with the others on it, max-min fair.
// Sites 0, 1, 2 of two ranks each in a chain: 0 -> 1 at 2B, 1 -> 2 at B/2 (and back), the
// route 0 -> 2 through 1. Rank 0 sends to rank 2 (site 0 -> 1), rank 1 to rank 4 (0 -> 1 -> 2),
// both at time 0, g = the WAN's gap for m. Rank 1's message is held to B/2 by the slow link,
// rank 0's takes the 1.5B left on the fast one; once rank 1's leaves (at g: alone it would move
// g x B/2 bytes at B/2), rank 0's has 2B: it leaves at 1.25 g. Without the network, a link per
// site pair, each leaves at g. And rank 5 -> rank 3 (2 -> 1, the other direction) is untouched.
Schedule chain(const Request& r) {
    Schedule s(r.rank, r.size);
    const Span b{Buf::Out, 0, r.bytes};
    switch (r.rank) {
        case 0: s.send(2, b); break;
        case 1: s.send(4, b); break;
        case 2: s.recv(0, b); break;
        case 3: s.recv(5, b); break;
        case 4: s.recv(1, b); break;
        default: s.send(3, b); break;
    }
    return s;
}

TEST(EventSim, RoutedLinksShareEveryLinkOfARouteMaxMinFair) {
    std::vector<std::vector<int>> ids;
    for (int r = 0; r < 6; ++r) ids.push_back({0, r / 2});
    Topology topo(std::move(ids), {"wan", "lan"});
    const double B = 12.5e6;
    SiteNetwork net;
    net.links = {{0, 1, 5e-3, 2 * B, "0>1"}, {1, 0, 5e-3, 2 * B, "1>0"}, {1, 2, 5e-3, B / 2, "1>2"}, {2, 1, 5e-3, B / 2, "2>1"}};
    net.routes = {{{0, 1}, {0}}, {{1, 0}, {1}}, {{1, 2}, {2}}, {{2, 1}, {3}}, {{0, 2}, {0, 2}}, {{2, 0}, {3, 1}}};
    topo.set_site_network(1, net);
    const std::vector<PLogPParams> two{wan(), lan()};
    const Algorithm alg{.coll = Collective::Bcast, .name = "chain", .build = chain, .description = "test"};
    const sim::LevelMap map(topo);
    const std::uint64_t m = 200000;
    const double Lw = wan().L, g = wan().g(static_cast<double>(m));
    sim::SimOptions opt;
    opt.per_rank_finish = true;
    opt.shared_link_levels = 1;
    const auto on = sim::simulate(bcast(6, m, 0), alg, &topo, &map, std::span<const PLogPParams>(two), opt);
    expect_rel(on.finish[4], Lw + g, "routed: rank 4 (held to the slow link's rate, its own bottleneck)");
    expect_rel(on.finish[2], Lw + 1.25 * g, "routed: rank 2 (1.5B while rank 1's message shares, then 2B)");
    expect_rel(on.finish[3], Lw + g, "routed: rank 3 (the other direction, alone)");
    // With 1 -> 2 at 4B the shared 0 -> 1 is both messages' bottleneck, and SimGrid's CM02 shares
    // it in proportion to 1 / route latency: rank 0's (5 ms) gets 4B/3, rank 1's (10 ms) 2B/3.
    // Rank 0's leaves at 1.5 g; rank 1's has g x 2B - 1.5 g x 2B/3 left at 2B: it leaves at 2 g.
    net.links[2].bandwidth_Bps = net.links[3].bandwidth_Bps = 4 * B;
    topo.set_site_network(1, net);
    const auto fair = sim::simulate(bcast(6, m, 0), alg, &topo, &map, std::span<const PLogPParams>(two), opt);
    expect_rel(fair.finish[2], Lw + 1.5 * g, "by latency: rank 2 (the shorter route's larger share)");
    expect_rel(fair.finish[4], Lw + 2 * g, "by latency: rank 4");
    opt.shared_link_levels = 0;
    const auto off = sim::simulate(bcast(6, m, 0), alg, &topo, &map, std::span<const PLogPParams>(two), opt);
    expect_rel(off.finish[2], Lw + g, "no links: rank 2");
    expect_rel(off.finish[4], Lw + g, "no links: rank 4");
}
