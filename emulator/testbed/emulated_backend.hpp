// The emulated testbed as a backend (gridcoll/backend.hpp): gridcoll-bench (Open MPI) run by
// mpirun across a testbed that is up — real kernels, real TCP, shaped links — its rows read
// back with backend "emulated". The description's Topology goes to the program as a rank map.
#pragma once

#include <string>

#include "gridcoll/backend.hpp"
#include "testbed.hpp"

namespace gridcoll::emulate {

class EmulatedBackend final : public Backend {
public:
    // `bench`: gridcoll-bench (default: next to the running program).
    EmulatedBackend(const Testbed& testbed, MpiOptions mpi = {}, const std::string& bench = "");
    std::string name() const override { return "emulated"; }
    void check(const Batch& batch) const override;
    void run(const Batch& batch, const RowSink& sink) override;

private:
    const Testbed& testbed_;
    MpiOptions mpi_;
    std::string bench_;
};

}  // namespace gridcoll::emulate
