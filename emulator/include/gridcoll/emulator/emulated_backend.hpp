// The emulated testbed as a backend (gridcoll/backend.hpp): gridcoll-bench (Open MPI) run by
// mpirun across a testbed that is up — real kernels, real TCP, shaped links — its rows read
// back with backend "emulated". The description's Topology goes to the program as a rank map.
#pragma once

#include <memory>
#include <string>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/emulator/testbed.hpp"

namespace gridcoll::emulate {

class EmulatedBackend final : public Backend {
public:
    // `bench`: gridcoll-bench (default: next to the running program).
    EmulatedBackend(const Testbed& testbed, MpiOptions mpi = {}, const std::string& bench = "");
    // The same, owning the testbed (a one-off testbed goes with the backend).
    EmulatedBackend(std::unique_ptr<Testbed> owned, MpiOptions mpi = {}, const std::string& bench = "");
    const Testbed& testbed() const { return testbed_; }
    std::string name() const override { return "emulated"; }
    void check(const Batch& batch) const override;
    void run(const Batch& batch, const RowSink& sink) override;

private:
    std::unique_ptr<Testbed> owned_;
    const Testbed& testbed_;
    MpiOptions mpi_;
    std::string bench_;
};

}  // namespace gridcoll::emulate
