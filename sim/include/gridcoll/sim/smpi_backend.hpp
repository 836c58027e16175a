// SimGrid's SMPI as a backend (gridcoll/backend.hpp): gridcoll-bench-smpi — the same MPI code
// as on Open MPI — run under smpirun on a platform, its rows read back. The platform's Topology
// goes to the program as a rank map (--rank-map), so hierarchical methods see the hierarchy.
// Simulated times are deterministic and independent of this machine's speed: computation is
// not benchmarked (smpi/simulate-computation:no).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/model/params.hpp"
#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/system/files.hpp"

namespace gridcoll::sim {

struct SmpiSettings {
    std::string network_model = "ideal";  // ideal (CM02: latency + bytes/bandwidth) or smpi
    bool no_privatize = false;            // share globals between simulated ranks
    bool shared_malloc = false;           // fold buffers (large runs; no verification)
    bool verbose = false;                 // print the command, keep SimGrid's log
    std::string smpi_algorithm;           // SimGrid's own algorithm behind 'native'
    std::vector<std::string> cfg;         // extra SimGrid KEY:VALUE settings
    std::string bench;                    // gridcoll-bench-smpi (default: next to the running program)
};

// One platform made ready for smpirun: what it reads (XML, hostfile) and the rank map of its
// Topology, written into a scratch directory that goes with the object.
class SmpiLaunch {
public:
    SmpiLaunch(const platform::SimPlatform& plat, SmpiSettings settings);
    // smpirun with gridcoll's deterministic, machine-independent settings and `cfg` (more
    // KEY:VALUE settings), then `program`.
    std::vector<std::string> command(const std::string& program, const std::vector<std::string>& cfg = {}) const;
    const std::string& rank_map() const { return rank_map_; }  // empty: no Topology known
    int ranks() const { return ranks_; }
    const SmpiSettings& settings() const { return settings_; }

private:
    SmpiSettings settings_;
    int ranks_;
    std::string xml_, hostfile_, rank_map_;
    std::unique_ptr<sys::ScratchDir> scratch_;
};

// Prints "gridcoll: <argv joined by spaces>" on stderr (the smpirun command, with --verbose).
void show_command(const std::vector<std::string>& argv);

class SmpiBackend final : public Backend {
public:
    // Throws Error when the bench program is missing.
    SmpiBackend(const platform::SimPlatform& plat, SmpiSettings settings = {});
    std::string name() const override { return "smpi"; }
    // validate(batch) plus: the batch's ranks are the platform's.
    void check(const Batch& batch) const override;
    void run(const Batch& batch, const RowSink& sink) override;
    // The full command for a batch (smpirun, its settings, the bench and its arguments).
    std::vector<std::string> command(const Batch& batch) const;

private:
    SmpiLaunch launch_;
    std::string bench_;
};

// gridcoll params measure: gridcoll-plogp-smpi (PLogP per level, runtime/programs/plogp_main.cpp)
// under smpirun on the platform; its comments pass to stderr. `bytes` empty: the program's
// default sizes. Throws Error when the run fails.
model::ParamSet measure_plogp_smpi(const platform::SimPlatform& plat, const SmpiSettings& settings, const std::string& bytes,
                                   int reps);

// gridcoll discover: gridcoll-discover-smpi (runtime/programs/discover_main.cpp) under smpirun on
// the platform, with `args` passed on. With `check` and a known Topology, the program compares
// its result with the platform's level by level.
struct SmpiDiscovery {
    int status = 0;                   // the program's: 0, or 1 when the check found a difference
    std::vector<std::string> report;  // its '#' lines
    std::string rank_map;             // the discovered rank map (empty on failure)
    std::string summary;              // its "# summary ..." line, without "# summary "
    double wall_s = 0;                // smpirun's wall time on this machine
};
SmpiDiscovery discover_smpi(const platform::SimPlatform& plat, const SmpiSettings& settings, const std::vector<std::string>& args,
                            bool check);

}  // namespace gridcoll::sim
