// The run-time optimiser of paper 000 (plogp_optimizer.cpp) is meant to run for every
// MPI_Bcast ("Optimization at runtime has to be very fast", §3.1): its heuristic search must not
// allocate. This file replaces the global operator new / delete of the test program with
// counting versions (malloc / free underneath) and checks that a decision allocates nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace gridcoll::model;

TEST(OptimizerHotPath, HeuristicDoesNotAllocate) {
    const PLogPParams wan = plogp_from_link(10e-3, 1e6), lan = plogp_from_link(20e-6, 50e6);
    const SearchLimits lim;
    // Warm up (first calls may touch lazily initialised state elsewhere).
    SingleLayerChoice s = optimize_single_layer(4u << 20, 1024, lan, Search::Heuristic, lim);
    TwoLayerChoice t = optimize_two_layer(4u << 20, 64, 16, wan, lan, Search::Heuristic, lim);
    const long before = g_allocations.load();
    s = optimize_single_layer(4u << 20, 1024, lan, Search::Heuristic, lim);
    t = optimize_two_layer(4u << 20, 64, 16, wan, lan, Search::Heuristic, lim);
    t = optimize_two_layer(12345, 32, 32, wan, lan, Search::Heuristic, lim);
    const long after = g_allocations.load();
    EXPECT_EQ(after - before, 0);
    // The counter does see allocations (the replacement is in effect), e.g. the exhaustive
    // search's height tables.
    optimize_single_layer(1 << 10, 64, lan, Search::Exhaustive, lim);
    EXPECT_GT(g_allocations.load(), after);
    EXPECT_GT(s.time, 0);
    EXPECT_GT(t.time, 0);
}
