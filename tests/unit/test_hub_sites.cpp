// A packed broadcast on trees of one rate reaching sites of four members or more by two sinks and
// a hub (algorithms/packing/out_trees.hpp, OutTrees::hub_sites; the method key hub=1, off by default):
//   - correct (the checker) from a root in every site, with uneven sites (one to six members),
//     hub on and off, and a message that does not divide evenly;
//   - at a site of four: the WAN pieces come into members 0 and 3 (the sinks) only; the hub
//     (member 2) takes pieces in from the sinks only and gives them to the forwarder (member 1)
//     and the sinks, the forwarder takes its pieces in from the hub only; by default, one sink;
//   - the key: parsed, printed, refused where no algorithm reads it.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "packing/out_trees.hpp"
#include "packing/unit_trees.hpp"
#include "site_graphs.hpp"

using namespace gridcoll;
using namespace gridcoll::detail;
using namespace gridcoll::test;

namespace {

const std::vector<int> kSizes{4, 3, 1, 6, 4, 2};

Request bcast_request(const Topology& t, std::uint64_t bytes, int root, bool hub) {
    Request r = gridcoll::test::bcast_request(t, bytes, root);
    r.params.hub = hub;
    return r;
}

// Every (sender, receiver) pair of the schedules of the ranks `first`.. `first + n - 1` in which
// one of the two is in that range.
std::set<std::pair<int, int>> messages(Request r, int first, int n) {
    std::set<std::pair<int, int>> got;
    for (int rank = first; rank < first + n; ++rank) {
        r.rank = rank;
        const Schedule s = build_schedule(r, "packed");
        for (const Step& st : s.steps()) {
            if (st.op == Op::Recv) got.insert({st.peer, rank});
            if (st.op == Op::Send) got.insert({rank, st.peer});
        }
    }
    return got;
}

}  // namespace

TEST(HubSites, CorrectFromEveryRootWithUnevenSites) {
    const Topology t = sites_on(kSizes, uneven_mesh());
    ASSERT_NE(taken_unit_bcast_trees(graph_of_links(6, uneven_mesh()), 0, 1 << 20, 0), nullptr)
        << "the broadcasts below would not take trees of one rate";
    const int checked = check_packed_from_every_site(t, kSizes, (1 << 20) + 3 * 1000 + 1, 2,
                                                     [](Request& r, int k) { r.params.hub = k == 0; });
    EXPECT_EQ(checked, 12);
}

TEST(HubSites, TheSinksGiveToTheHubWhichGivesToTheForwarder) {
    const Topology t = sites_on(kSizes, uneven_mesh());
    const int first = 4 + 3 + 1 + 6;  // site 4: four members, not the root's
    const auto in_site = [&](int rank) { return rank >= first && rank < first + 4; };
    const auto from_outside = [&](const std::set<std::pair<int, int>>& m) {
        std::set<int> to;
        for (const auto& [a, b] : m)
            if (!in_site(a) && in_site(b)) to.insert(b - first);
        return to;
    };
    const auto within = messages(bcast_request(t, 1 << 20, 0, true), first, 4);
    EXPECT_EQ(from_outside(within), (std::set<int>{0, 3})) << "the WAN pieces come into the two sinks";
    std::set<std::pair<int, int>> lan;
    for (const auto& [a, b] : within)
        if (in_site(a) && in_site(b)) lan.insert({a - first, b - first});
    EXPECT_EQ(lan, (std::set<std::pair<int, int>>{{0, 2}, {3, 2}, {2, 0}, {2, 1}, {2, 3}}))
        << "sinks to the hub, the hub to the forwarder and the sinks, nothing else in the site";
    EXPECT_EQ(from_outside(messages(bcast_request(t, 1 << 20, 0, false), first, 4)), (std::set<int>{0}))
        << "hub=0: one sink";
    Request plain = gridcoll::test::bcast_request(t, 1 << 20, 0);
    EXPECT_EQ(from_outside(messages(plain, first, 4)), (std::set<int>{0})) << "one sink by default";
}

TEST(HubSites, TheKey) {
    EXPECT_FALSE(parse_method(Collective::Bcast, "packed").params.hub);
    EXPECT_TRUE(parse_method(Collective::Bcast, "packed:hub=1").params.hub);
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "packed:hub=1")), "packed:hub=1");
    EXPECT_EQ(to_string(parse_method(Collective::Bcast, "packed:hub=0")), "packed");
    const auto error_of = [](const char* text, Collective c) {
        try {
            parse_method(c, text);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error_of("packed:hub=2", Collective::Bcast).find("hub must be 0 or 1, not '2'"), std::string::npos);
    EXPECT_NE(error_of("packed:hub=0", Collective::Allgather).find("allgather algorithm 'packed' has no sinks and hub a site (hub)"),
              std::string::npos);
}
