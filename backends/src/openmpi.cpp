// Open MPI on this machine: its settings and how it opens.
#include <memory>

#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/runtime/openmpi_backend.hpp"
#include "openers.hpp"

namespace gridcoll::backends {

BackendInfo openmpi_info() {
    return {"openmpi", "gridcoll-bench under mpirun on this machine (shared memory and loopback; the platform's Topology)", true,
            {bench_setting(), mca_setting()}};
}

OpenedBackend open_openmpi(const SettingReader& s, const Target& t) {
    const platform::SimPlatform p = platform::load_sim_platform(t.platform, t.hostfile, t.ranks, t.placement);
    OpenedBackend o;
    o.backend = std::make_unique<launch::OpenMpiBackend>(p.ranks, p.topology, program(t, "gridcoll-bench", s.text("bench")),
                                                         s.mca("mca"));
    o.ranks = p.ranks;
    o.topology = p.topology;
    o.mpi = true;
    return o;
}

}  // namespace gridcoll::backends
