// Hierarchical scatter and gather: per-rank blocks travel level by level, a group's root sending
// every part of its cluster the blocks of that part's ranks in one message (and gathering them
// back the same way). The parts of a cluster have different sizes on uneven Topologies, so the
// flat registry scatters and gathers (equal blocks per member) do not apply; every level is a
// flat tree (MagPIe's and MPICH-G's choice for these collectives).
//
// Blocks are held in "part order": ranks sorted by their masters at every cut (the masters of
// level_groups, root substitution included), so every cluster and every part of one is a
// contiguous range. With block placement and root 0 part order is rank order and nothing is
// copied; otherwise the root packs (scatter) or unpacks (gather) once, in runs.
//
// Internal to algorithms/.
#pragma once

#include <unordered_map>
#include <utility>
#include <vector>

#include "compose.hpp"

namespace gridcoll::detail {

struct PartOrder {
    std::vector<int> order;  // ranks in part order
    std::vector<int> pos;    // position of every rank in `order`
    // Per cut: master of a part -> (first position, number of ranks) of that part.
    std::vector<std::unordered_map<int, std::pair<int, int>>> parts;
    bool identity() const;
};
PartOrder part_order(const Topology& t, const Cuts& cuts, int root);

// Copies blocks of `b` bytes from part order (`parts`) to rank order (`ranks`), one copy per run
// of consecutive ranks.
void unpack_blocks(Composer& c, const PartOrder& po, std::uint64_t b, Span parts, Span ranks);

// Scatter of r.bytes per rank from `root` (the blocks in rank order from `from` at the root; each
// rank's block to `to`; only buf and off are used), over `cuts`.
//   cost: sum over levels of (parts - 1) sends by each group root, the widest level first; the
//   bytes crossing a level are the blocks of the ranks below it, once.
// `piece` > 0: a part of several blocks travels as pieces of whole blocks of about `piece`
// bytes, so that a master passes on the first pieces while the later ones still arrive (the WAN
// message starts before the LAN steps end).
void compose_scatter(Composer& c, const Request& r, const Cuts& cuts, int root, Span from = {Buf::In, 0, 0},
                     Span to = {Buf::Out, 0, 0}, std::uint64_t piece = 0);
// Gather of r.bytes per rank (each rank's block at `from`) to `root`'s `to`, in rank order, over
// `cuts`, deepest level first; `piece` as for compose_scatter.
void compose_gather(Composer& c, const Request& r, const Cuts& cuts, int root, Span from = {Buf::In, 0, 0},
                    Span to = {Buf::Out, 0, 0}, std::uint64_t piece = 0);

}  // namespace gridcoll::detail
