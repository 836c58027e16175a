// k-ary tree broadcast — paper 002 §4.2 (binary tree, k = 2) generalised to fan-out k, the
// single-layer tree of degree d of paper 000 §3 (MagPIe's segmented d-ary broadcast).
//
//            0                 k = 2 (binary): children of v are 2v+1, 2v+2
//          /   \  .
//         1     2
//        / \   / \  .
//       3   4 5   6
//
// Cost: height h = ceil(log_k((k-1)P + 1)) - 1; Hockney (h + n_s - 1) k (alpha(m_s) + m_s beta(m_s));
//       PLogP (binary) (ceil(log2(P+1)) - 1)(L + 2 g(m_s)) + (n_s - 1) max{2 g, o_r + g + o_s}.
//
// The k-ary tree posts a segment's sends to all of a node's children at once and completes them
// before the next segment, as Open MPI's generic tree engine does; the binary tree (paper 002)
// sends one after another. Why: an MPI send's completion differs between libraries. Over TCP a
// 64 KiB send completes once the receiver has acknowledged the rendezvous and the data is in the
// socket (about one round trip); under SimGrid it completes when the data has arrived. One send
// at a time, the children behind different WAN links are served side by side by Open MPI and one
// after another by SimGrid (emulated das-4x2, 4-ary, 64 KiB segments: SMPI +59 / +80 / +84 % at
// 64 KiB / 256 KiB / 1 MiB); posted together they are side by side in both (+5 / +7 / +8 %).
// The PLogP cost above serialises the children at the sender's port: on a LAN, where they share
// the sender's link, that is the cost; behind separate links (a mesh WAN) they overlap and take
// less (the event simulator with --shared-links models that).
//
// References: [P002] §4.2; [P000] §3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "../core/engines.hpp"

namespace gridcoll::detail {

Schedule bcast_kary(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, kary_tree(r.size, r.root, r.rank, r.params.fanout), Segments(r.bytes, r.params.segment), Buf::Out,
               0, nullptr, ChildSends::Together);
    return s;
}

// Paper 002's binary tree: one send at a time, as its PLogP formula assumes.
Schedule bcast_binary(const Request& r) {
    Schedule s(r.rank, r.size);
    tree_bcast(s, kary_tree(r.size, r.root, r.rank, 2), Segments(r.bytes, r.params.segment), Buf::Out);
    return s;
}

}  // namespace gridcoll::detail
