// Open MPI across a testbed: mpirun runs in the management namespace, its rsh agent starts each
// daemon inside a host's network and UTS namespaces, out-of-band traffic stays on the unshaped
// management network and MPI messages use the shaped data network. Ranks go to hosts as the
// description places them (Open MPI's sequential mapper reads one host per rank).
#pragma once

#include <string>
#include <vector>

#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/emulator/testbed_plan.hpp"

namespace gridcoll::emulate {

struct MpiOptions {
    int ranks = 0;               // 0: the description's placement
    bool yield_when_idle = true; // mpi_yield_when_idle: do not busy-poll a core the delay lines need
    double stall_s = -1;         // stop a run without progress for this long (< 0: default_stall_s; 0: never)
    std::string fault_schedule;  // a fault schedule file carried out during the run, from its first output
    std::vector<std::string> extra_mca;  // more "--mca", key, value triples, flattened; a key given here
                                         // replaces gridcoll's default for it
};

// The rsh agent script's text (written to <state dir>/rsh-agent by prepare_mpirun). On a testbed
// over machines reached by SSH, a host of another machine is handed to the same agent there
// (written when that machine's part comes up), its command quoted once for the remote shell.
std::string rsh_agent_script(const TestbedPlan& plan);
// Writes it; returns its path.
std::string write_rsh_agent(const TestbedPlan& plan);

// Writes the agent and a hostfile (one line per rank) into the state directory and returns the
// full command: nsenter into the management namespace, mpirun with its options, then `command`.
std::vector<std::string> prepare_mpirun(const TestbedPlan& plan, const platform::Platform& p, const MpiOptions& opt,
                                        const std::vector<std::string>& command);

}  // namespace gridcoll::emulate
