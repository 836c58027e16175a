// Virtual topologies (paper 002 §4.1): one rank's parent and children in a tree spanning a
// communicator of `size` ranks rooted at `root`. Trees are built in "virtual rank" space
// (vrank = (rank - root) mod size) and returned as real ranks.
//
//   binomial (size 8, root 0)        k-ary, k = 2 (binary)      k-chain, k = 2 (pipeline: k = 1)
//          0                                 0                          0
//      /   |   \                           /   \                      /   \  .
//     4    2    1                         1     2                    1     5
//    / \   |                             / \   / \                   |     |
//   6   5  3                            3   4 5   6                  2     6
//   |                                  /                             |     |
//   7                                 7                              3     7
//                                                                    |
//                                                                    4
#pragma once

#include <cstdint>
#include <vector>

namespace gridcoll {

struct TreeNode {
    int parent = -1;            // -1 at the root
    std::vector<int> children;  // in the order the node serves them
};

inline int to_vrank(int rank, int root, int size) { return (rank - root + size) % size; }
inline int to_rank(int vrank, int root, int size) { return (vrank + root) % size; }

// Flat tree: the root's children are all other ranks in increasing vrank order.
TreeNode flat_tree(int size, int root, int rank);

// Binomial tree; children in decreasing subtree size (the largest subtree is served first).
// The subtree of vrank v spans vranks [v, v + binomial_subtree_size(size, v)).
TreeNode binomial_tree(int size, int root, int rank);
int binomial_subtree_size(int size, int vrank);

// Complete k-ary tree in breadth-first vrank order: children of v are k*v+1 .. k*v+k.
TreeNode kary_tree(int size, int root, int rank, int k);

// k chains hanging off the root, vranks 1..size-1 split into k contiguous chains as evenly as
// possible (the first chains get the extra ranks). k = 1 is the pipeline.
TreeNode kchain_tree(int size, int root, int rank, int k);

// A run of `n` vranks starting at vrank `v`.
struct VrankRun {
    int v, n;
};
// The vrank range [v, v + n) cut where it wraps past rank size-1: one or two runs, each
// contiguous in rank order (so in a root's buffer of per-rank blocks).
std::vector<VrankRun> vrank_runs(int v, int n, int root, int size);

// Smallest h with 2^h >= n (ceil(log2 n)), 0 for n <= 1.
int ceil_log2(std::uint64_t n);
// Largest power of two <= n (n >= 1).
int floor_pow2(int n);

}  // namespace gridcoll
