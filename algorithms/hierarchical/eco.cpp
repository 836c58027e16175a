// ECO — paper 003 (Lowekamp, Beguelin, CMU-CS-95-191) §4-5: hosts partitioned into subnets
// (the Topology level `level`, default 1; found by measurement with paper 003's 20 % rule, or
// given by the platform), an inter-subnet tree rooted at the originator with the subnets as
// vertices, and a k-ary tree of user-chosen degree k inside every subnet. Every operation
// uses the same pattern: data-moving ones from the root down (broadcast), combining ones from
// the leaves up (reduce; barrier up then down).
//
//   originator --> one representative per other subnet (star of subnets: a message crosses
//                  the bridge or router once per subnet, never twice)
//   then each subnet: k-ary tree from its representative (the originator in its own subnet)
//
// Cost (broadcast, S subnets, subnet of n hosts): (S - 1)(L_wan + M g_wan) in series at the
// originator, + ceil(log_k((k - 1) n + 1) - 1) k (L_lan + M g_lan) in every subnet in parallel.
// Reduce: binary trees inside subnets (commutative operations), flat among representatives.
//
// ECO's ring order (§5): ring algorithms (allgather ring, allreduce ring) run over the ranks
// ordered subnet by subnet, so the ring crosses each inter-subnet link once per step instead of
// at every neighbour pair that placement split. Same cost formulas as the flat rings with
// (P - S) LAN hops and S WAN hops per step; allgather's blocks are put back in rank order at the
// end (one copy per run of consecutive ranks) when the order differs from rank order.
//
// References: [P003] §4-5, Table 3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
#include "blocks.hpp"
#include "hierarchy.hpp"

namespace gridcoll::detail {

Schedule bcast_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_bcast(c, r, two_layer_plan(r, "eco", Method("linear"), Method("kary", 0, r.params.fanout)), r.root);
    return s;
}

Schedule reduce_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_reduce(c, r, two_layer_plan(r, "eco", Method("flat"), Method("binary")), r.root, Span{Buf::Out, 0, r.bytes});
    return s;
}

Schedule barrier_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_barrier(c, r, two_layer_plan(r, "eco", Method("flat"), Method("flat")));
    return s;
}

namespace {
// Ranks subnet by subnet (blocks.hpp's part order over the whole communicator and the subnets).
PartOrder eco_ring_order(const Request& r) {
    return part_order(*r.topology, two_layers(*r.topology, r.params.cluster_level, "eco"), 0);
}
}  // namespace

Schedule allgather_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const PartOrder po = eco_ring_order(r);
    const Span all{Buf::Out, 0, r.bytes * static_cast<std::uint64_t>(r.size)};
    const Span blocks = po.identity() ? all : c.fresh_tmp(all.len);
    Request q = r;
    q.topology = nullptr;
    c.embed(build_for_group(q, r.size, po.pos[static_cast<std::size_t>(r.rank)], 0, Method("ring")), po.order,
            Placement{Span{Buf::In, 0, 0}, blocks});
    if (!po.identity()) unpack_blocks(c, po, r.bytes, blocks, all);
    return s;
}

Schedule allreduce_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const PartOrder po = eco_ring_order(r);
    Request q = r;
    q.topology = nullptr;
    c.embed(build_for_group(q, r.size, po.pos[static_cast<std::size_t>(r.rank)], 0, Method("ring")),
            po.order, Placement{});
    return s;
}

}  // namespace gridcoll::detail
