// Open MPI on this machine as a backend (gridcoll/algorithms/backend.hpp): gridcoll-bench run by
// mpirun with as many ranks as the target has (oversubscribed when there are more ranks than
// cores), the target's Topology handed to it as a rank map, its rows read back with backend
// "openmpi". Real MPI code and a real MPI library, with this machine's shared memory and loopback
// for a network; for a WAN use the emulated backend. No MPI is linked here: mpirun is a child.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::launch {

// mpirun's --mca arguments: each of `defaults` (key, value) unless `given` (the user's "--mca",
// key, value triples, flattened) sets the same key, then all of `given`.
std::vector<std::string> mca_arguments(const std::vector<std::pair<std::string, std::string>>& defaults,
                                       const std::vector<std::string>& given);

// Open MPI 4.1's mpirun, unpacking the aggregated help message a rank's MPI_Abort sends, can hang
// in its own finalize (github.com/open-mpi/ompi issue 8356): gridcoll's launchers turn the
// aggregation off unless told otherwise.
inline const std::pair<std::string, std::string> kUnaggregatedHelp{"orte_base_help_aggregate", "0"};

class OpenMpiBackend final : public Backend {
public:
    // `bench`: gridcoll-bench (default: next to the running program); `mca`: more mpirun
    // arguments ("--mca", key, value triples, flattened).
    OpenMpiBackend(int ranks, std::shared_ptr<const Topology> topology, const std::string& bench = "",
                   std::vector<std::string> mca = {});
    std::string name() const override { return "openmpi"; }
    // validate(batch) plus: the batch's ranks are the target's.
    void check(const Batch& batch) const override;
    void run(const Batch& batch, const RowSink& sink) override;
    // The full command for a batch (mpirun, its options, the bench and its arguments).
    std::vector<std::string> command(const Batch& batch, const std::string& rank_map) const;

private:
    int ranks_;
    std::shared_ptr<const Topology> topology_;
    std::string bench_;
    std::vector<std::string> mca_;
};

}  // namespace gridcoll::launch
