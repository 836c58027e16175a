// One test, every registered algorithm (the SimGrid teshsuite idea): the checker proves each
// algorithm correct for P = 1..33, every root, message sizes {0, 1, odd, just over one segment,
// many segments}, several segment sizes and fan-outs; reductions also with 4-byte elements and,
// where the algorithm keeps rank order, with a non-commutative operation. A second pass runs
// every algorithm on random multilevel Topologies (random_topology.hpp: uneven clusters,
// one-rank clusters, interleaved ranks, 1-5 levels): flat algorithms must ignore the
// hierarchy, hierarchical ones must follow any shape.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/random_topology.hpp"
#include "gridcoll/algorithms/registry.hpp"

using namespace gridcoll;

namespace {

class EveryAlgorithm : public ::testing::TestWithParam<const Algorithm*> {};

std::string describe(const Request& r, const std::string& name) {
    return std::string(to_string(r.coll)) + "/" + name + " P=" + std::to_string(r.size) +
           " root=" + std::to_string(r.root) + " bytes=" + std::to_string(r.bytes) +
           " segment=" + std::to_string(r.params.segment) + " fanout=" + std::to_string(r.params.fanout) +
           " elem=" + std::to_string(r.elem) + (r.commutative ? "" : " non-commutative");
}

// Message sizes for a segment size: 0, 1, odd, just over one segment, many segments.
std::set<std::uint64_t> sizes_for(std::uint64_t seg, std::uint64_t elem) {
    const std::uint64_t s = seg == 0 ? 8 : seg;
    return {0, elem, 13 * elem, s + elem, 5 * s + 3 * elem};
}

// For hierarchical algorithms in the first pass: P ranks in clusters of three (the last one
// shorter) under one wide-area level.
Topology clusters_of_three(int P) {
    std::vector<std::vector<int>> ids;
    for (int r = 0; r < P; ++r) ids.push_back({0, r / 3});
    return Topology(ids, {"wan", "lan"});
}

// The count patterns an irregular collective is checked with (one for the others).
std::vector<CountPattern> patterns_for(const Algorithm& a) {
    if (!is_irregular(a.coll)) return {CountPattern::Even};
    return {CountPattern::Even, CountPattern::Ramp, CountPattern::Zeros};
}

std::vector<int> roots_for(const Algorithm& a, int P) {
    std::vector<int> roots;
    if (!is_rooted(a.coll)) return {0};
    for (int r = 0; r < P; ++r) roots.push_back(r);
    return roots;
}

}  // namespace

TEST_P(EveryAlgorithm, IsCorrectEverywhere) {
    const Algorithm& a = *GetParam();
    const std::vector<std::uint64_t> segments = a.segmented ? std::vector<std::uint64_t>{0, 4, 7} : std::vector<std::uint64_t>{0};
    const std::vector<int> fanouts = a.uses_fanout ? std::vector<int>{1, 2, 3, 5} : std::vector<int>{2};
    std::vector<std::pair<std::uint64_t, bool>> variants{{1, true}};  // (element size, commutative)
    if (is_reduction(a.coll)) variants = {{1, true}, {4, true}, {1, false}};
    const bool data = a.coll != Collective::Barrier;
    int checked = 0;
    for (int P = 1; P <= 33; ++P) {
        const Topology topo = clusters_of_three(P);
        for (int root : roots_for(a, P)) {
            for (auto [elem, commutative] : variants) {
                for (std::uint64_t seg : segments) {
                    for (int fanout : fanouts) {
                        for (std::uint64_t bytes : data ? sizes_for(seg * elem, elem) : std::set<std::uint64_t>{0})
                        for (CountPattern pattern : patterns_for(a)) {
                            Request r;
                            r.coll = a.coll;
                            r.size = P;
                            r.root = root;
                            r.bytes = bytes;
                            r.elem = elem;
                            r.commutative = commutative;
                            r.params.segment = seg * elem;
                            r.params.fanout = fanout;
                            if (a.needs_topology) r.topology = &topo;
                            r.counts = make_counts(a.coll, P, bytes, elem, pattern);
                            const CheckResult res = check_algorithm(r, a.name);
                            ++checked;
                            if (!commutative && !a.keeps_order) {
                                // Must refuse, and say why.
                                ASSERT_FALSE(res.ok) << describe(r, a.name) << " silently accepted a non-commutative op";
                                ASSERT_NE(res.error.find("commutative"), std::string::npos) << res.error;
                                continue;
                            }
                            ASSERT_TRUE(res.ok) << describe(r, a.name) << " counts=" << to_string(pattern) << ": " << res.error;
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 0);
}

TEST_P(EveryAlgorithm, IsCorrectOnRandomTopologies) {
    const Algorithm& a = *GetParam();
    const std::uint64_t seg = a.segmented ? 5 : 0;
    const int fanout = a.uses_fanout ? 3 : 2;
    int checked = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const int P = 1 + static_cast<int>((seed * 11) % 37);
        const Topology topo = random_topology(P, seed);
        std::vector<int> roots = roots_for(a, P);
        if (roots.size() > 6) roots = {0, 1, P / 2, P - 2, P - 1, static_cast<int>(seed % static_cast<std::uint64_t>(P))};
        for (int root : roots)
            for (std::uint64_t bytes : a.coll == Collective::Barrier ? std::set<std::uint64_t>{0} : std::set<std::uint64_t>{0, 1, 23})
            for (CountPattern pattern : patterns_for(a))
            for (bool commutative : {true, false}) {
                if (!commutative && !(is_reduction(a.coll) && a.keeps_order)) continue;
                Request r;
                r.coll = a.coll;
                r.size = P;
                r.root = root;
                r.bytes = bytes;
                r.params.segment = seg;
                r.params.fanout = fanout;
                r.topology = &topo;
                r.commutative = commutative;
                r.counts = make_counts(a.coll, P, bytes, 1, pattern);
                const CheckResult res = check_algorithm(r, a.name);
                ++checked;
                ASSERT_TRUE(res.ok) << describe(r, a.name) << " counts=" << to_string(pattern) << " on " << describe(topo) << ": " << res.error;
            }
    }
    EXPECT_GE(checked, 40);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryAlgorithm, ::testing::ValuesIn([] {
                             std::vector<const Algorithm*> v;
                             for (const auto& a : all_algorithms()) v.push_back(&a);
                             return v;
                         }()),
                         [](const ::testing::TestParamInfo<const Algorithm*>& info) {
                             std::string n = std::string(to_string(info.param->coll)) + "_" + info.param->name;
                             for (char& c : n)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

TEST(RegistryCoverage, EveryCollectiveHasAlgorithms) {
    for (Collective c : all_collectives()) EXPECT_FALSE(algorithms_for(c).empty()) << to_string(c);
}
