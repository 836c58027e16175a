#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/topology.hpp"

#include <array>

namespace gridcoll {

namespace {
struct Named {
    Collective c;
    std::string_view name;
};
constexpr std::array<Named, kCollectiveCount> kNames{{
    {Collective::Barrier, "barrier"},
    {Collective::Bcast, "bcast"},
    {Collective::Reduce, "reduce"},
    {Collective::Allreduce, "allreduce"},
    {Collective::Scan, "scan"},
    {Collective::Scatter, "scatter"},
    {Collective::Gather, "gather"},
    {Collective::Allgather, "allgather"},
    {Collective::Alltoall, "alltoall"},
    {Collective::ReduceScatter, "reduce_scatter"},
    {Collective::ReduceScatterBlock, "reduce_scatter_block"},
    {Collective::Exscan, "exscan"},
    {Collective::Allgatherv, "allgatherv"},
    {Collective::Gatherv, "gatherv"},
    {Collective::Scatterv, "scatterv"},
    {Collective::Alltoallv, "alltoallv"},
}};
}  // namespace

const std::vector<Collective>& all_collectives() {
    static const std::vector<Collective> all = [] {
        std::vector<Collective> v;
        for (const auto& n : kNames) v.push_back(n.c);
        return v;
    }();
    return all;
}

std::string_view to_string(Collective c) {
    for (const auto& n : kNames)
        if (n.c == c) return n.name;
    return "?";
}

Collective parse_collective(std::string_view name) {
    for (const auto& n : kNames)
        if (n.name == name) return n.c;
    std::string valid;
    for (const auto& n : kNames) valid += (valid.empty() ? "" : ", ") + std::string(n.name);
    throw Error("unknown collective '" + std::string(name) + "' (valid: " + valid + ")");
}

bool is_rooted(Collective c) {
    return c == Collective::Bcast || c == Collective::Reduce || c == Collective::Scatter ||
           c == Collective::Gather || c == Collective::Gatherv || c == Collective::Scatterv;
}

bool is_reduction(Collective c) {
    return c == Collective::Reduce || c == Collective::Allreduce || c == Collective::Scan ||
           c == Collective::ReduceScatter || c == Collective::ReduceScatterBlock || c == Collective::Exscan;
}

bool is_irregular(Collective c) {
    return c == Collective::ReduceScatter || c == Collective::Allgatherv || c == Collective::Gatherv ||
           c == Collective::Scatterv || c == Collective::Alltoallv;
}

std::uint64_t block_bytes(const Request& r, int j) {
    if (r.counts) return r.counts->block(j);
    return r.bytes;
}

std::uint64_t block_offset(const Request& r, int j) {
    if (r.counts) return r.counts->offset(j);
    return r.bytes * static_cast<std::uint64_t>(j);
}

BufferSizes buffer_sizes(const Request& r) {
    const std::uint64_t m = r.bytes;
    const std::uint64_t all = m * static_cast<std::uint64_t>(r.size);
    const bool root = r.rank == r.root;
    switch (r.coll) {
        case Collective::Barrier: return {0, 0};
        case Collective::Bcast: return {0, m};
        case Collective::Reduce: return {m, root ? m : 0};
        case Collective::Allreduce:
        case Collective::Scan: return {m, m};
        case Collective::Scatter: return {root ? all : 0, m};
        case Collective::Gather: return {m, root ? all : 0};
        case Collective::Allgather: return {m, all};
        case Collective::Alltoall: return {all, all};
        case Collective::ReduceScatterBlock: return {all, m};
        case Collective::Exscan: return {m, r.rank == 0 ? 0 : m};
        default: break;
    }
    if (!r.counts) return {};
    const Counts& c = *r.counts;
    switch (r.coll) {
        case Collective::ReduceScatter: return {c.total(), c.block(r.rank)};
        case Collective::Allgatherv: return {c.block(r.rank), c.total()};
        case Collective::Gatherv: return {c.block(r.rank), root ? c.total() : 0};
        case Collective::Scatterv: return {root ? c.total() : 0, c.block(r.rank)};
        case Collective::Alltoallv: return {c.send_total(r.rank), c.recv_total(r.rank)};
        default: break;
    }
    return {};
}

void validate(const Request& r) {
    if (r.size < 1) throw Error("communicator size must be >= 1 (got " + std::to_string(r.size) + ")");
    constexpr int kMostRanks = 1 << 24;  // as many as a platform description may place
    if (r.size > kMostRanks)
        throw Error("communicator size " + std::to_string(r.size) + " is beyond the " + std::to_string(kMostRanks) +
                    " ranks gridcoll plans for");
    if (r.topology && r.topology->size() != r.size)
        throw Error("the Topology has " + std::to_string(r.topology->size()) + " ranks, the communicator " +
                    std::to_string(r.size));
    if (r.rank < 0 || r.rank >= r.size)
        throw Error("rank " + std::to_string(r.rank) + " out of range [0, " + std::to_string(r.size) + ")");
    if (r.root < 0 || r.root >= r.size)
        throw Error("root " + std::to_string(r.root) + " out of range [0, " + std::to_string(r.size) + ")");
    if (r.elem == 0) throw Error("element size must be >= 1");
    if (is_reduction(r.coll) && r.bytes % r.elem != 0)
        throw Error("message size " + std::to_string(r.bytes) + " bytes is not a multiple of the element size " +
                    std::to_string(r.elem));
    if (is_irregular(r.coll)) {
        if (!r.counts) throw Error(std::string(to_string(r.coll)) + " needs its per-rank counts");
        if (r.counts->ranks() != r.size || r.counts->is_matrix() != (r.coll == Collective::Alltoallv))
            throw Error(std::string(to_string(r.coll)) + ": counts for " + std::to_string(r.counts->ranks()) +
                        " ranks do not fit a communicator of " + std::to_string(r.size));
        if (is_reduction(r.coll))
            for (int j = 0; j < r.size; ++j)
                if (r.counts->block(j) % r.elem != 0)
                    throw Error("reduce_scatter: rank " + std::to_string(j) + "'s count of " +
                                std::to_string(r.counts->block(j)) + " bytes is not whole elements");
    }
    if (r.params.fanout < 1) throw Error("fan-out must be >= 1 (got " + std::to_string(r.params.fanout) + ")");
}

}  // namespace gridcoll
