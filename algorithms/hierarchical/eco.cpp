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
// The other operations follow the same pattern (§4: "the same communication pattern is used for
// all operations"; one receiver is the root of the tree, otherwise rank 0 is):
//   scatter  the originator sends every representative its subnet's blocks in one message, the
//            representatives hand them out (flat: a k-ary tree would carry each block twice in the
//            subnet). Cost: (S - 1)(L_wan + n b g_wan) + (n - 1)(L_lan + b g_lan). Gather mirrors it.
//   alltoall gather of every rank's P blocks to rank 0, a transpose there, scatter back: O(P^2 b)
//            bytes through the root, as §6 says (its "weakness of using trees"). Cost: the gather
//            and the scatter above with P b bytes per rank, plus P^2 block copies at the root.
//   scan     gather of the inputs to rank 0, the P - 1 prefixes combined there in rank order
//            (any operation, commutative or not), scatter of the prefixes. Cost: gather + scatter
//            of b bytes per rank + (P - 1) M gamma at the root.
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
Cuts subnets(const Request& r) { return two_layers(*r.topology, r.params.cluster_level, "eco"); }
}  // namespace

Schedule scatter_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_scatter(c, r, subnets(r), r.root);
    return s;
}

Schedule gather_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    compose_gather(c, r, subnets(r), r.root);
    return s;
}

Schedule alltoall_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const auto P = static_cast<std::uint64_t>(r.size), b = r.bytes;
    Request rows = r;  // every rank's row of P blocks moves as one block
    rows.bytes = P * b;
    Span gathered{}, sent{};
    if (r.rank == 0) {
        gathered = c.fresh_tmp(P * P * b);  // [source][destination]
        sent = c.fresh_tmp(P * P * b);      // [destination][source]
    }
    compose_gather(c, rows, subnets(r), 0, Span{Buf::In, 0, 0}, gathered);
    if (r.rank == 0 && b > 0)
        for (std::uint64_t i = 0; i < P; ++i)
            for (std::uint64_t j = 0; j < P; ++j)
                c.add(Step{Op::Copy, Order::DstLeft, 0, -1, Span{gathered.buf, gathered.off + (i * P + j) * b, b},
                           Span{sent.buf, sent.off + (j * P + i) * b, b}});
    compose_scatter(c, rows, subnets(r), 0, sent, Span{Buf::Out, 0, 0});
    return s;
}

Schedule scan_eco(const Request& r) {
    Schedule s(r.rank, r.size);
    Composer c(s);
    const auto P = static_cast<std::uint64_t>(r.size), b = r.bytes;
    const Span prefixes = r.rank == 0 ? c.fresh_tmp(P * b) : Span{};
    compose_gather(c, r, subnets(r), 0, Span{Buf::In, 0, 0}, prefixes);
    if (r.rank == 0 && b > 0)
        for (std::uint64_t i = 1; i < P; ++i)  // prefix i = prefix i-1 op input i
            c.add(Step{Op::Reduce, Order::SrcLeft, 0, -1, Span{prefixes.buf, prefixes.off + (i - 1) * b, b},
                       Span{prefixes.buf, prefixes.off + i * b, b}});
    compose_scatter(c, r, subnets(r), 0, prefixes, Span{Buf::Out, 0, 0});
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
