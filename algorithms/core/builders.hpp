// Declarations of every schedule builder. Internal to algorithms/: the public way in is the
// registry (gridcoll/registry.hpp). Adding an algorithm = one builder here + one registry line.
#pragma once

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/schedule.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::detail {

// Open MPI's TCP transport (btl_tcp_eager_limit) and SMPI (smpi/send-is-detached-thresh) both
// send a message under 64 KiB eagerly: the send completes before the data has arrived, so
// nothing that waits for a send's completion paces such messages (multitree, twolayer).
inline constexpr std::uint64_t kEagerLimit = 64 * 1024;

// bcast/
Schedule bcast_linear(const Request& r);
Schedule bcast_coleaders(const Request& r);
Schedule reduce_coleaders(const Request& r);
Schedule bcast_pipeline(const Request& r);
Schedule bcast_binomial(const Request& r);
Schedule bcast_binary(const Request& r);
Schedule bcast_kary(const Request& r);
Schedule bcast_kchain(const Request& r);
Schedule bcast_splitted_binary(const Request& r);

// reduce/
Schedule reduce_flat(const Request& r);
Schedule reduce_pipeline(const Request& r);
Schedule reduce_binomial(const Request& r);
Schedule reduce_binary(const Request& r);
Schedule reduce_kchain(const Request& r);

// barrier/
Schedule barrier_flat(const Request& r);
Schedule barrier_direct(const Request& r);
Schedule barrier_double_ring(const Request& r);
Schedule barrier_recursive_doubling(const Request& r);
Schedule barrier_bruck(const Request& r);

// alltoall/
Schedule alltoall_linear(const Request& r);
Schedule alltoall_pairwise(const Request& r);
Schedule alltoall_bruck(const Request& r);

// scatter/
Schedule scatter_linear(const Request& r);
Schedule scatter_binomial(const Request& r);

// gather/
Schedule gather_linear(const Request& r);
Schedule gather_binomial(const Request& r);

// allgather/
Schedule allgather_ring(const Request& r);
Schedule allgather_recursive_doubling(const Request& r);
Schedule allgather_bruck(const Request& r);

// allreduce/
Schedule allreduce_reduce_bcast(const Request& r);
Schedule allreduce_recursive_doubling(const Request& r);
Schedule allreduce_ring(const Request& r);
Schedule allreduce_direct(const Request& r);

// scan/
Schedule scan_linear(const Request& r);
Schedule scan_recursive_doubling(const Request& r);

// reduce_scatter/ (reduce_scatter and reduce_scatter_block)
Schedule reduce_scatter_pairwise(const Request& r);
Schedule reduce_scatter_ring(const Request& r);
Schedule reduce_scatter_reduce_scatterv(const Request& r);

// exscan/
Schedule exscan_linear(const Request& r);
Schedule exscan_recursive_doubling(const Request& r);

// allgatherv/, gatherv/, scatterv/, alltoallv/
Schedule allgatherv_ring(const Request& r);
Schedule allgatherv_direct(const Request& r);
Schedule gatherv_linear(const Request& r);
Schedule scatterv_linear(const Request& r);
Schedule alltoallv_linear(const Request& r);
Schedule alltoallv_pairwise(const Request& r);

// hierarchical/ (need Request::topology)
Schedule bcast_multilevel(const Request& r);
Schedule reduce_multilevel(const Request& r);
Schedule barrier_multilevel(const Request& r);
Schedule allreduce_multilevel(const Request& r);
Schedule scatter_multilevel(const Request& r);
Schedule gather_multilevel(const Request& r);
Schedule allgather_multilevel(const Request& r);
Schedule bcast_magpie(const Request& r);
Schedule reduce_magpie(const Request& r);
Schedule barrier_magpie(const Request& r);
Schedule allreduce_magpie(const Request& r);
Schedule scatter_magpie(const Request& r);
Schedule gather_magpie(const Request& r);
Schedule bcast_eco(const Request& r);
Schedule reduce_eco(const Request& r);
Schedule barrier_eco(const Request& r);
Schedule scatter_eco(const Request& r);
Schedule gather_eco(const Request& r);
Schedule alltoall_eco(const Request& r);
Schedule scan_eco(const Request& r);
Schedule allgather_eco(const Request& r);
Schedule allreduce_eco(const Request& r);
Schedule bcast_twolayer(const Request& r);
// What plain `twolayer` runs on `t` for a message of `bytes`: the P-LogP optimiser's (m, d_w, d_l)
// as [kary:k=d_w:seg=m|kary:k=d_l:seg=m]; no levels when the Topology has no link numbers.
MethodParams twolayer_choice(const Topology& t, std::uint64_t bytes, int cluster_level, std::uint64_t segment = 0);
Schedule bcast_multitree(const Request& r);
Schedule allreduce_multitree(const Request& r);
Schedule bcast_wanstream(const Request& r);
Schedule bcast_leaders(const Request& r);
Schedule reduce_leaders(const Request& r);
Schedule allreduce_leaders(const Request& r);
Schedule allreduce_coleaders(const Request& r);
Schedule barrier_leaders(const Request& r);
Schedule allgather_leaders(const Request& r);
Schedule allgather_coleaders(const Request& r);

Schedule scan_leaders(const Request& r);
Schedule exscan_leaders(const Request& r);
Schedule scan_coleaders(const Request& r);
Schedule exscan_coleaders(const Request& r);
Schedule gatherv_leaders(const Request& r);
Schedule scatterv_leaders(const Request& r);
Schedule reduce_scatter_leaders(const Request& r);
Schedule reduce_scatter_paired(const Request& r);
Schedule alltoall_paired(const Request& r);
Schedule alltoallv_paired(const Request& r);

// hierarchical/packed_*.cpp: streams along trees packed into the sites' network (packing/)
Schedule bcast_packed(const Request& r);
Schedule allgather_packed(const Request& r);
Schedule reduce_packed(const Request& r);
Schedule reduce_scatter_packed(const Request& r);  // reduce_scatter and reduce_scatter_block
Schedule allreduce_packed(const Request& r);

}  // namespace gridcoll::detail
