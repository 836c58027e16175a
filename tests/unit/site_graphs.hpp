// Site graphs and checks shared by the tree-packing tests (test_tree_packing.cpp,
// test_unit_trees.cpp): rings, chains, stars, meshes, two hubs and random partial meshes as
// undirected links; whether a parent list spans the sites from a root; whether a packing fits
// every link; a Topology of sites over such a graph; and the packed broadcast checked from every
// site (test_handed_runs.cpp, test_hub_sites.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/site_network.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "packing/packing.hpp"

namespace gridcoll::test {

using detail::Packing;
using detail::RootTrees;
using detail::SiteGraph;
using detail::SiteTree;
using detail::UndirectedLink;

constexpr double kB = 1e6;  // 1 MB/s, the papers' WAN

inline std::vector<UndirectedLink> ring(int n, double lat = 0.01) {
    std::vector<UndirectedLink> v;
    for (int i = 0; i < n; ++i) v.push_back({i, (i + 1) % n, lat, kB});
    return v;
}
inline std::vector<UndirectedLink> chain(int n) {
    std::vector<UndirectedLink> v;
    for (int i = 0; i + 1 < n; ++i) v.push_back({i, i + 1, 0.01, kB});
    return v;
}
inline std::vector<UndirectedLink> star(int n) {  // site 0 the hub
    std::vector<UndirectedLink> v;
    for (int i = 1; i < n; ++i) v.push_back({0, i, 0.005, kB});
    return v;
}
inline std::vector<UndirectedLink> mesh(int n) {
    std::vector<UndirectedLink> v;
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) v.push_back({a, b, 0.01, kB});
    return v;
}
// Six sites, every pair a link of 1, 2 or 3 MB/s: each site has a 1 MB/s link, so every share of
// wanstream's two-hop trees flows at 1 MB/s (5 MB/s from site 0) where the cuts allow 11.
inline std::vector<UndirectedLink> uneven_mesh() {
    std::vector<UndirectedLink> v;
    for (int a = 0; a < 6; ++a)
        for (int b = a + 1; b < 6; ++b) v.push_back({a, b, 0.01, (1 + (a + 2 * b) % 3) * kB});
    return v;
}
inline std::vector<UndirectedLink> two_hubs() {  // as the shipped twohub-10x8
    std::vector<UndirectedLink> v{{0, 1, 0.02, 2 * kB}};
    for (int s = 2; s < 10; ++s) v.push_back({s < 6 ? 0 : 1, s, 0.005, kB});
    return v;
}
// A connected partial mesh: a random spanning tree plus `extra` random links, mixed speeds.
inline std::vector<UndirectedLink> partial_mesh(int n, int extra, std::mt19937& rng) {
    std::vector<UndirectedLink> v;
    const auto speed = [&rng] { return kB * static_cast<double>(1 + rng() % 4); };
    const auto lat = [&rng] { return 0.002 * static_cast<double>(1 + rng() % 10); };
    for (int i = 1; i < n; ++i) v.push_back({static_cast<int>(rng() % static_cast<unsigned>(i)), i, lat(), speed()});
    for (int k = 0; k < extra; ++k) {
        const int a = static_cast<int>(rng() % static_cast<unsigned>(n)), b = static_cast<int>(rng() % static_cast<unsigned>(n));
        const bool known = std::any_of(v.begin(), v.end(), [&](const UndirectedLink& u) {
            return (u.a == a && u.b == b) || (u.a == b && u.b == a);
        });
        if (a != b && !known) v.push_back({a, b, lat(), speed()});
    }
    return v;
}

// Every non-root vertex reaches the root by following parents.
inline bool is_arborescence(const std::vector<int>& parent, int root) {
    const int n = static_cast<int>(parent.size());
    if (parent[static_cast<std::size_t>(root)] != -1) return false;
    for (int v = 0; v < n; ++v) {
        int u = v, hops = 0;
        while (u != root && hops <= n) {
            u = parent[static_cast<std::size_t>(u)];
            if (u < 0) return false;
            ++hops;
        }
        if (u != root) return false;
    }
    return true;
}

// Each link's load (the rates of the tree edges whose routes ride it) within its capacity; every
// tree spans the sites from the demand's root.
inline void expect_feasible(const SiteGraph& g, const Packing& p, const std::string& what) {
    std::vector<double> load(static_cast<std::size_t>(g.links()), 0);
    for (const RootTrees& rt : p.roots)
        for (const SiteTree& t : rt.trees) {
            ASSERT_TRUE(is_arborescence(t.parent, rt.root)) << what << ": a tree does not span the sites from " << rt.root;
            EXPECT_GT(t.rate, 0) << what;
            for (int v = 0; v < g.n; ++v)
                if (const int u = t.parent[static_cast<std::size_t>(v)]; u >= 0)
                    detail::for_edge_links(g, u, v, rt.way, [&](int l) { load[static_cast<std::size_t>(l)] += t.rate; });
        }
    for (int l = 0; l < g.links(); ++l)
        EXPECT_LE(load[static_cast<std::size_t>(l)], g.cap[static_cast<std::size_t>(l)] * (1 + 1e-9))
            << what << ": link " << l << " over its capacity";
}

// A Topology of sites of the given sizes (block placement) over the WAN graph `links`.
inline Topology sites_on(const std::vector<int>& sizes, const std::vector<UndirectedLink>& links) {
    std::vector<std::vector<int>> ids;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        for (int m = 0; m < sizes[i]; ++m) ids.push_back({0, static_cast<int>(i)});
    Topology t(ids, {"wan", "lan"}, {LevelLink{0.01, kB}, LevelLink{2e-5, 5e7}});
    const SiteGraph g = detail::graph_of_links(static_cast<int>(sizes.size()), links);
    SiteNetwork net;
    for (int l = 0; l < g.links(); ++l)
        net.links.push_back({g.ends[static_cast<std::size_t>(l)].first, g.ends[static_cast<std::size_t>(l)].second,
                             g.lat[static_cast<std::size_t>(l)], g.cap[static_cast<std::size_t>(l)], "l" + std::to_string(l)});
    for (int a = 0; a < g.n; ++a)
        for (int b = 0; b < g.n; ++b)
            if (a != b) net.routes[{a, b}] = g.route(a, b);
    t.set_site_network(1, std::move(net));
    return t;
}

// A broadcast of `bytes` from `root` over t.
inline Request bcast_request(const Topology& t, std::uint64_t bytes, int root) {
    Request r;
    r.coll = Collective::Bcast;
    r.size = t.size();
    r.bytes = bytes;
    r.root = root;
    r.topology = &t;
    return r;
}

// The packed broadcast of `bytes` checked (the checker) from the last rank of every site of t
// (sites of `sizes` ranks, in order), once for each of `settings` settings that `set` makes of the
// request; returns how many were checked.
inline int check_packed_from_every_site(const Topology& t, const std::vector<int>& sizes, std::uint64_t bytes,
                                        int settings, const std::function<void(Request&, int)>& set) {
    int first = 0, checked = 0;
    for (int size : sizes) {
        first += size;
        for (int k = 0; k < settings; ++k) {
            Request r = bcast_request(t, bytes, first - 1);
            set(r, k);
            const CheckResult res = check_algorithm(r, "packed");
            ++checked;
            EXPECT_TRUE(res.ok) << "setting " << k << ", root " << r.root << ": " << res.error;
        }
    }
    return checked;
}

}  // namespace gridcoll::test
