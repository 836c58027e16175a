// Topology discovery by measurement — paper 003 (Lowekamp, Beguelin, ECO) §3-4.1, generalised
// to every level: the multilevel Topology of a communicator found from round-trip times alone.
// No MPI here: the measurement is a callback (`Probe`), so the same code runs on Open MPI, on
// SMPI (runtime/mpi/discover_comm.*) and in tests on synthetic networks.
//
// Distances are minimum round-trip times of a small message (paper 003 §3: the minimum, the
// least disturbed by other traffic). Two distances are in the same class when the larger is
// within `threshold` (paper 003's 20 %) of the smaller one — the rule of paper 003 Figure 2.
//
// The search (what is timed), top-down from representatives:
//   part(S): the first rank r of S times every other member of S; the members fall into
//   distance classes c1 < c2 < ... (the 20 % rule on r's sorted distances). r's own group at
//   c1 is r plus class 1, at c2 that group plus class 2, and so on; every class is split the same
//   way by its own first member, and the parts of a class whose top split is at the class's own
//   distance are siblings of r's group (they are all that far from each other).
//   A set in which two successive representatives and its last member each see every other
//   member at one distance is taken as flat (every member its own part) without timing its
//   remaining pairs: the homogeneity assumption that makes the cost ~P*C instead of P^2 (stated
//   in the output; --exact-search drops it).
//   Unlike paper 003's Figure 2, which compares an edge with the least expensive edge at both of
//   its ends, a class is cut by its representative's view only; the module check below and the
//   second and last looks catch what that misses on the shipped platforms.
// Then one check per group (a "module" check): a group is real only if its members look the
// same from outside — the first, second and last of its parts are within `threshold` of each
// other from every sibling group's representative. Paper 003's rule alone merges the two
// closest sites of a triangle of unequal WAN links (geo-dc: 30 ms vs 60 and 80 ms RTT) into an
// extra level; the check dissolves such a group into its parent.
//
// Cost: a rank in the k-th of C top-level groups is timed against about k representatives, and
// against about three per level below: ~P*C/2 + 3P pairs instead of P(P-1)/2.
//
// Bandwidth (paper 003 §3 leaves it to future work): two levels with equal latency but
// different bandwidth look like one. So every group whose parts are single ranks, three or
// more of them, is searched again the same way with `split_bytes` messages, whose times carry
// the bandwidth; if that finds structure, it replaces the group (the pairs count as
// `bandwidth_pairs`). A group of two has one distance and nothing to split.
//
// Noise (paper 003 §3, §4.1): every pair is the minimum of `reps` exchanges; a distance within
// `margin` of a class boundary gets a second look with `second_look_reps` exchanges, and is
// reported as ambiguous if it stays near the boundary.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::discovery {

struct Options {
    double threshold = 0.20;        // paper 003 Figure 2: 20 %
    double margin = 0.05;           // a distance this close (relative) to a class boundary is looked at again
    int reps = 5;                   // exchanges per timed pair (the minimum is kept)
    int second_look_reps = 20;      // exchanges for a pair near a boundary
    std::uint64_t probe_bytes = 1;  // message size of the distance probe
    std::uint64_t bandwidth_bytes = 1 << 20;  // per-level bandwidth probe (0: none)
    std::uint64_t split_bytes = 256 << 10;    // message size of the bandwidth search of flat groups (0: none)
    // Take a set as flat once two successive representatives see every other member at one
    // distance (the ~P*C cost). Off: every such set is searched to the end (exact on any
    // placement whose distances follow the hierarchy, at up to P^2/2 pairs).
    bool assume_homogeneous = true;
};

// The minimum round-trip time, in seconds, of `reps` exchanges of `bytes` between ranks a and b.
using Probe = std::function<double(int a, int b, std::uint64_t bytes, int reps)>;

struct Ambiguous {
    int a = 0, b = 0;
    double rtt_s = 0;    // after the second look
    double class_s = 0;  // the class minimum it was compared with
};

struct LevelStats {
    int clusters = 0;        // clusters at this level (level 0: 1)
    int pair_a = -1, pair_b = -1;  // the pair timed for the level's link (-1: no pair shares exactly this level)
    double rtt_s = 0;        // minimum round trip of a 1-byte message (0: not measured)
    double bandwidth_Bps = 0;
};

struct Result {
    Topology topology;              // levels named l0 (everyone), l1, ...; links as measured
    std::vector<LevelStats> levels;
    long pairs_timed = 0;           // pairs timed with small messages (the latency search)
    long second_looks = 0;
    long bandwidth_pairs = 0;       // pairs timed with split_bytes messages (the bandwidth search)
    long distinct_pairs = 0;        // pairs timed by either search, each counted once
    long link_probes = 0;           // pairs timed for the per-level links
    std::vector<Ambiguous> ambiguous;
    bool flat = false;              // one level: no structure found
};

// Discovers the Topology of `size` ranks. Throws Error for size < 1 or bad options.
Result discover(int size, const Probe& probe, const Options& options = {});

// Where two Topologies of the same ranks agree, level by level. Both are first reduced to their
// groups (clusters of two or more ranks), each group's level being how many groups lie above
// it: a level that splits nothing where it stands (a node level with one rank per node, a site
// with a single machine) cannot be measured, so it is not compared. Then per level, the
// partition of the ranks (a rank without a group at a level is alone there). Throws Error if the
// sizes differ.
struct LevelComparison {
    int level = 0;                // index among the kept levels
    int expected_clusters = 0;    // -1: the expected Topology has fewer levels
    int found_clusters = 0;       // -1: the found one has fewer
    bool equal = false;
};
std::vector<LevelComparison> compare_partitions(const Topology& expected, const Topology& found);
bool same_partitions(const std::vector<LevelComparison>& c);
// The same groups (every cluster of two or more ranks, as a set of ranks, at any level), however
// the levels are numbered: the hierarchies agree up to levels that split nothing.
bool same_groups(const Topology& a, const Topology& b);

}  // namespace gridcoll::discovery
