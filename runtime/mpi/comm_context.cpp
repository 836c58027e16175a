#include "gridcoll/runtime/comm_context.hpp"

#include <algorithm>
#include <vector>

#include "gridcoll/runtime/discover_comm.hpp"
#include "gridcoll/algorithms/registry.hpp"

namespace gridcoll {

namespace {

// Level 1 cluster id = the lowest rank of the node communicator each rank lands in.
std::shared_ptr<const Topology> node_topology(MPI_Comm comm) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int leader = rank;
    MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    std::vector<int> leaders(static_cast<std::size_t>(size));
    MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
    std::vector<std::vector<int>> ids;
    ids.reserve(leaders.size());
    for (int l : leaders) ids.push_back({0, l});
    return std::make_shared<const Topology>(std::move(ids), std::vector<std::string>{"net", "node"});
}

}  // namespace

std::shared_ptr<const Topology> comm_topology(MPI_Comm comm, const std::string& source) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (source.empty() || source == "flat") return std::make_shared<const Topology>(Topology::flat(size));
    if (source == "node") return node_topology(comm);
    if (source == "discover" || source.rfind("discover:", 0) == 0) {
        if (size < 2) return std::make_shared<const Topology>(Topology::flat(size));
        const std::string cache = source == "discover" ? "" : source.substr(9);
        return discovered_topology(comm, cache, discovery::Options{}, true).topology;
    }
    auto t = std::make_shared<const Topology>(Topology::load(source));
    if (t->size() != size)
        throw Error("rank map '" + source + "' has " + std::to_string(t->size()) + " ranks, the communicator " +
                    std::to_string(size));
    return t;
}

CommContext::CommContext(MPI_Comm comm, std::shared_ptr<const Topology> topology, ResolverSettings resolver)
    : topology_(std::move(topology)), resolver_(std::move(resolver)) {
    MPI_Comm_dup(comm, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    if (topology_ && topology_->size() != size_)
        throw Error("the topology has " + std::to_string(topology_->size()) + " ranks, the communicator " +
                    std::to_string(size_));
}

CommContext::~CommContext() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Decision CommContext::decide(const Operation& op) const {
    Operation o = op;
    o.topology = topology_;
    Resolution r = resolve(o, resolver_);
    return {std::move(r.named), std::move(r.choice)};  // the builder fills in the optimiser's choice alike
}

const BuiltSchedule& CommContext::schedule(const Operation& op, int root) {
    Operation keyed = op;
    keyed.root = root;
    auto& slot = cache_[to_string(keyed)];
    if (!slot) {
        Request req = op.request(rank_, root);
        slot = std::make_unique<BuiltSchedule>(build_schedule(req, op.method.algorithm));
    }
    return *slot;
}

}  // namespace gridcoll
