// Generic segmented engines over a tree (the Open MPI coll/base idea: one engine, many trees).
// Internal to algorithms/: builders call these with the tree of their choice.
#pragma once

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/segments.hpp"
#include "gridcoll/algorithms/tree.hpp"

#include <vector>

namespace gridcoll::detail {

// How a node of tree_bcast sends one segment to its children.
enum class ChildSends {
    OneAtATime,  // child i+1's send starts when child i's has completed (MPICH, SimGrid's binomial_tree)
    Together,    // all the segment's sends posted at once, completed before the next segment's
                 // (Open MPI's generic tree engine: isend to every child, then waitall)
};

// Broadcast of [base, base + segs.total()) of buffer `buf` down tree `t`: each segment is
// received from the parent, then forwarded to every child (segment k to every child before
// segment k+1 to any). At the root, segment k's sends wait for `root_ready[k]` when given
// (e.g. the step that computed it).
//   cost (Hockney): (height + n_s - 1) * (fan-out) * (alpha + m_s beta) along the longest path
void tree_bcast(Schedule& s, const TreeNode& t, const Segments& segs, Buf buf, std::uint64_t base = 0,
                const std::vector<StepId>* root_ready = nullptr, ChildSends how = ChildSends::OneAtATime);

// Reduction of every rank's In[0, total) up tree `t` into Out at the tree's root. Children
// must be listed in increasing vrank order with contiguous subtrees above their parent's vrank
// for the result to be in rank order (then the root of the tree must be rank 0's vrank 0).
// Segments are pipelined: a node forwards segment k as soon as its children's segment k are in.
// Scratch: non-root nodes accumulate in Tmp[0, total); child i's data lands in its own slot.
// The tree's root accumulates in Out, or in Tmp[0, total) when `root_into_out` is false.
// Returns, at the tree's root, the step that finishes each segment (empty elsewhere).
std::vector<StepId> tree_reduce(Schedule& s, const TreeNode& t, const Segments& segs, bool root_into_out = true);

// Which way a scatter or gather moves its blocks.
enum class Blocks : std::uint8_t { FromRoot, ToRoot };

// The linear (flat-tree) scatter or gather of r.bytes per rank, segmented: the root sends to (or
// receives from) every other rank in vrank order, straight from In (into Out) at the block of
// that rank; the root's own block is copied.
//   cost (Hockney): (P - 1) (alpha + m beta)
Schedule linear_blocks(const Request& r, Blocks way);

// One rank's place in the binomial tree of a scatter or gather of r.bytes per rank: the tree
// node, its vrank, its subtree's size, and the pieces its subtree's blocks travel in between it
// and its parent (one run of vranks, or at the root's children the runs of consecutive ranks).
struct BinomialBlocks {
    TreeNode t;
    int v = 0, n = 0;
    std::uint64_t m = 0;
    std::vector<VrankRun> pieces;
    std::uint64_t bytes(int count) const { return static_cast<std::uint64_t>(count) * m; }
};
BinomialBlocks binomial_blocks(const Request& r);

// The root of a binomial scatter or gather: its own block copied, then each child's whole
// subtree sent from In (or received into Out) in `children`'s order, one message per run of
// consecutive ranks in it.
void binomial_root_blocks(Schedule& s, const Request& r, const std::vector<int>& children, Blocks way);

// Throws Error saying that `algorithm` would reorder a non-commutative reduction.
[[noreturn]] void throw_needs_commutative(const Request& r, const char* algorithm);

}  // namespace gridcoll::detail
