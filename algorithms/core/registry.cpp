#include "gridcoll/registry.hpp"

#include "builders.hpp"

namespace gridcoll {

namespace {
using C = Collective;
using namespace detail;
// Flags: segmented, uses_fanout, keeps_order (default true).
constexpr bool SEG = true, FAN = true, NOSEG = false, NOFAN = false, UNORDERED = false;
}  // namespace

const std::vector<Algorithm>& all_algorithms() {
    static const std::vector<Algorithm> table = {
        // Broadcast (paper 002 Table 2; k-ary/k-chain: paper 002 §4.1, paper 000 §3).
        {C::Bcast, "linear", "flat tree: root sends to every rank (002)", bcast_linear, SEG, NOFAN},
        {C::Bcast, "pipeline", "single chain, segments pipelined (002)", bcast_pipeline, SEG, NOFAN},
        {C::Bcast, "binomial", "binomial tree, largest subtree first (002, MPICH)", bcast_binomial, SEG, NOFAN},
        {C::Bcast, "binary", "binary tree (002)", bcast_binary, SEG, NOFAN},
        {C::Bcast, "splitted-binary", "halves down two binary subtrees, then pairwise swap (002)",
         bcast_splitted_binary, SEG, NOFAN},
        {C::Bcast, "kary", "k-ary tree of fan-out k, MagPIe's d-ary tree (000, 002)", bcast_kary, SEG, FAN},
        {C::Bcast, "kchain", "k pipelines hanging off the root (002)", bcast_kchain, SEG, FAN},
        // Reduce (paper 002 Table 3).
        {C::Reduce, "flat", "root receives and combines every rank's data (002)", reduce_flat, SEG, NOFAN},
        {C::Reduce, "pipeline", "single chain towards the root (002)", reduce_pipeline, SEG, NOFAN},
        {C::Reduce, "binomial", "binomial tree (002, MPICH)", reduce_binomial, SEG, NOFAN},
        {C::Reduce, "binary", "binary tree; commutative operations only (002)", reduce_binary, SEG, NOFAN, UNORDERED},
        {C::Reduce, "kchain", "k chains towards the root (002)", reduce_kchain, SEG, FAN},
        // Barrier.
        {C::Barrier, "flat", "flat fan-in to rank 0, then fan-out (002)", barrier_flat, NOSEG, NOFAN},
        {C::Barrier, "double-ring", "a token travels the ring twice (002)", barrier_double_ring, NOSEG, NOFAN},
        {C::Barrier, "recursive-doubling", "pairwise exchanges with rank XOR 2^k, non-powers of two folded (002)", barrier_recursive_doubling, NOSEG, NOFAN},
        {C::Barrier, "bruck", "dissemination: send to r+2^k, receive from r-2^k (002, Bruck)", barrier_bruck, NOSEG, NOFAN},
        // Alltoall.
        {C::Alltoall, "linear", "every rank sends every block directly, segmented (002)", alltoall_linear, SEG, NOFAN},
        {C::Alltoall, "pairwise", "step i: send to r+i, receive from r-i (002)", alltoall_pairwise, NOSEG, NOFAN},
        {C::Alltoall, "bruck", "log2 P rounds of packed blocks (Bruck et al.)", alltoall_bruck, NOSEG, NOFAN},
        // Scatter.
        {C::Scatter, "linear", "root sends each rank its block (003, MPICH)", scatter_linear, SEG, NOFAN},
        {C::Scatter, "binomial", "binomial tree carrying whole subtrees' blocks (MPICH)", scatter_binomial, NOSEG, NOFAN},
        // Gather.
        {C::Gather, "linear", "every rank sends its block to the root (003, MPICH)", gather_linear, SEG, NOFAN},
        {C::Gather, "binomial", "binomial tree collecting subtrees' blocks (MPICH)", gather_binomial, NOSEG, NOFAN},
        // Allgather.
        {C::Allgather, "ring", "P-1 steps around a ring (MPICH)", allgather_ring, NOSEG, NOFAN},
        {C::Allgather, "recursive-doubling", "exchanges with rank XOR 2^k, doubling the data (MPICH)", allgather_recursive_doubling, NOSEG, NOFAN},
        {C::Allgather, "bruck", "ceil(log2 P) rounds to r-2^k (Bruck et al.)", allgather_bruck, NOSEG, NOFAN},
        // Allreduce.
        {C::Allreduce, "reduce-bcast", "binomial reduce to rank 0, then binomial broadcast (002 style composition)", allreduce_reduce_bcast, SEG, NOFAN},
        {C::Allreduce, "recursive-doubling", "exchange-and-combine with rank XOR 2^k (MPICH)", allreduce_recursive_doubling, NOSEG, NOFAN},
        {C::Allreduce, "ring", "reduce-scatter then allgather around a ring (Patarasuk-Yuan, Rabenseifner)", allreduce_ring, NOSEG, NOFAN, UNORDERED},
        // Scan.
        {C::Scan, "linear", "rank r receives the prefix from r-1, combines, forwards (MPICH)", scan_linear, SEG, NOFAN},
        {C::Scan, "recursive-doubling", "log2 P rounds of partial prefixes (Hillis-Steele, MPICH)", scan_recursive_doubling, NOSEG, NOFAN},
    };
    return table;
}

std::vector<const Algorithm*> algorithms_for(Collective c) {
    std::vector<const Algorithm*> v;
    for (const auto& a : all_algorithms())
        if (a.coll == c) v.push_back(&a);
    return v;
}

const Algorithm& find_algorithm(Collective c, std::string_view name) {
    std::string valid;
    for (const Algorithm* a : algorithms_for(c)) {
        if (a->name == name) return *a;
        valid += (valid.empty() ? "" : ", ") + a->name;
    }
    throw Error("unknown " + std::string(to_string(c)) + " algorithm '" + std::string(name) + "' (valid: " + valid +
                ")");
}

Schedule build_schedule(const Request& r, std::string_view algorithm) {
    validate(r);
    const Algorithm& a = find_algorithm(r.coll, algorithm);
    if (a.needs_topology && r.topology == nullptr)
        throw Error(std::string(to_string(r.coll)) + " algorithm '" + a.name + "' needs a topology");
    return a.build(r);
}

}  // namespace gridcoll
