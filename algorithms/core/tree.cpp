#include "gridcoll/algorithms/tree.hpp"

#include <algorithm>

namespace gridcoll {

int ceil_log2(std::uint64_t n) {
    int h = 0;
    while ((std::uint64_t{1} << h) < n) ++h;
    return h;
}

int floor_pow2(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

std::vector<VrankRun> vrank_runs(int v, int n, int root, int size) {
    const int wrap = size - root;  // vrank of rank 0
    if (v >= wrap || v + n <= wrap) return {{v, n}};
    return {{v, wrap - v}, {wrap, v + n - wrap}};
}

TreeNode flat_tree(int size, int root, int rank) {
    TreeNode t;
    if (rank != root) {
        t.parent = root;
        return t;
    }
    for (int v = 1; v < size; ++v) t.children.push_back(to_rank(v, root, size));
    return t;
}

int binomial_subtree_size(int size, int vrank) {
    // The subtree of v spans v .. v + lowbit(v) - 1 (the whole tree for v = 0), clipped to size.
    int span = vrank == 0 ? size : (vrank & -vrank);
    return std::min(span, size - vrank);
}

TreeNode binomial_tree(int size, int root, int rank) {
    TreeNode t;
    const int v = to_vrank(rank, root, size);
    int mask = 1;
    while (mask < size) {
        if (v & mask) {
            t.parent = to_rank(v - mask, root, size);
            break;
        }
        mask <<= 1;
    }
    // Children are v + mask' for every mask' below the bit that links v to its parent.
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < size) t.children.push_back(to_rank(v + mask, root, size));
    return t;
}

TreeNode kary_tree(int size, int root, int rank, int k) {
    TreeNode t;
    const int v = to_vrank(rank, root, size);
    if (v > 0) t.parent = to_rank((v - 1) / k, root, size);
    for (int i = 1; i <= k; ++i) {
        const long c = static_cast<long>(k) * v + i;
        if (c < size) t.children.push_back(to_rank(static_cast<int>(c), root, size));
    }
    return t;
}

TreeNode kchain_tree(int size, int root, int rank, int k) {
    TreeNode t;
    const int n = size - 1;  // ranks below the root
    if (n == 0) return t;
    k = std::clamp(k, 1, n);
    const int base = n / k, extra = n % k;
    // Chain c covers vranks [first(c), first(c) + len(c)).
    auto len = [&](int c) { return base + (c < extra ? 1 : 0); };
    auto first = [&](int c) { return 1 + c * base + std::min(c, extra); };
    const int v = to_vrank(rank, root, size);
    if (v == 0) {
        for (int c = 0; c < k; ++c) t.children.push_back(to_rank(first(c), root, size));
        return t;
    }
    int c = 0;
    while (v >= first(c) + len(c)) ++c;
    t.parent = to_rank(v == first(c) ? 0 : v - 1, root, size);
    if (v + 1 < first(c) + len(c)) t.children.push_back(to_rank(v + 1, root, size));
    return t;
}

}  // namespace gridcoll
