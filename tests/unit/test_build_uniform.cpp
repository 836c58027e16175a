// A request's schedule builds on every rank or on none. The PMPI library relies on it: a
// non-blocking call must start locally, so it builds a new schedule without asking the other
// ranks whether they could (runtime/pmpi/README.md); a build that failed on some ranks only
// would leave the others waiting for them. Every algorithm of the registry, and every
// hierarchical one with every flat method of its collective at each level, on random multilevel
// Topologies, with a commutative and a non-commutative operation: each rank's build is tried and
// the outcomes must agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/random_topology.hpp"
#include "gridcoll/algorithms/registry.hpp"

using namespace gridcoll;

namespace {

// The methods tried for an algorithm: itself, and with levels, each flat method of its
// collective at every level (the text a user would force).
std::vector<Method> methods_for(const Algorithm& a) {
    if (!a.uses_levels) return {parse_method(a.coll, a.name)};
    std::vector<std::string> flat;
    for (const Algorithm* level : algorithms_for(a.coll))
        if (!level->needs_topology && !level->uses_levels) flat.push_back(level->name);
    std::vector<Method> out;
    for (const std::string& level : flat) {
        out.push_back(parse_method(a.coll, a.name + "[" + level + "|" + flat.front() + "]"));
        out.push_back(parse_method(a.coll, a.name + "[" + flat.front() + "|" + level + "]"));
    }
    return out;
}

// How many of the ranks' builds of `r` with `m` succeed.
int builds(Request r, const Method& m) {
    int ok = 0;
    r.params = m.params;
    for (int rank = 0; rank < r.size; ++rank) {
        r.rank = rank;
        try {
            (void)build_schedule(r, m.algorithm);
            ++ok;
        } catch (const Error&) {
        }
    }
    return ok;
}

}  // namespace

TEST(BuildUniform, EveryRankBuildsOrNone) {
    int tried = 0, refused = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const int P = 2 + static_cast<int>((seed * 7) % 19);
        const Topology topo = random_topology(P, seed);
        for (const Algorithm& a : all_algorithms()) {
            if (is_irregular(a.coll)) continue;  // their counts are per call (no schedule cache)
            for (const Method& m : methods_for(a))
                for (bool commutative : {true, false}) {
                    if (!commutative && !is_reduction(a.coll)) continue;
                    Request r;
                    r.coll = a.coll;
                    r.size = P;
                    r.root = static_cast<int>(seed % static_cast<std::uint64_t>(P));
                    r.bytes = a.coll == Collective::Barrier ? 0 : 24;
                    r.elem = 4;
                    r.commutative = commutative;
                    r.topology = &topo;
                    const int ok = builds(r, m);
                    ++tried;
                    refused += ok == 0;
                    EXPECT_TRUE(ok == 0 || ok == P)
                        << to_string(a.coll) << " " << to_string(m) << " on " << describe(topo)
                        << (commutative ? "" : ", non-commutative") << ": " << ok << " of " << P << " ranks build it";
                }
        }
    }
    EXPECT_GT(tried, 1000);
    EXPECT_GT(refused, 0);  // the non-commutative cases of reordering methods: the check can see a refusal
}
