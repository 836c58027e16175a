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
// References: [P003] §4-5, Table 3 (algorithms/REFERENCES.md).
#include "../core/builders.hpp"
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

}  // namespace gridcoll::detail
