// The PMPI library's settings, read once at MPI_Init from the environment. Each parameter has
// two spellings; the first one set wins:
//
//   GRIDCOLL_<NAME>          e.g. GRIDCOLL_BCAST_ALGORITHM=multitree:seg=64K
//   OMPI_MCA_gridcoll_<name> what `mpirun --mca gridcoll_bcast_algorithm multitree:seg=64K` sets
//                            in every rank's environment (Open MPI's MCA style)
//
//   topology          where the Topology comes from (comm_context.hpp's sources): flat, node
//                     (default: ranks sharing memory), discover, discover:FILE (measured at
//                     MPI_Init, cached in FILE for later runs), a rank-map file, or map:TEXT —
//                     the rank map itself with ';' between lines ("map:levels wan site;rank 0 0 0;...")
//   rules             a decision rules file (gridcoll/model/rules.hpp); may name `native`
//   decision          builtin (default without rules), rules (default with rules), plogp
//                     (broadcasts by the P-LogP optimiser's twolayer, the rest as builtin)
//   min_bytes         builtin: messages below this go to the MPI library (default 0: none;
//                     barriers never)
//   <coll>_algorithm  forces the method of one collective (any of the sixteen: bcast, reduce,
//                     ..., reduce_scatter_block, alltoallv; its non-blocking form too): any
//                     method text, `native` or `auto` (the decision above)
//   verbose           0 (default), 1: per call-site class what was chosen and why, and a
//                     summary at MPI_Finalize, 2: also every schedule built
//   enable            1 (default); 0 sends every call to the MPI library
//   cache             schedules kept per communicator (default 256; the oldest goes first)
//   progress          how pending non-blocking collectives advance: calls (inside the program's
//                     MPI calls only — MPI_Test, MPI_Wait..., later collectives), thread (also a
//                     progress thread, which needs MPI_THREAD_MULTIPLE: the library asks MPI for
//                     it at MPI_Init) or auto (default: thread where the topology setting can
//                     give sites — a rank map or discovery — calls with flat or node, where
//                     every call goes to the MPI library anyway)
//   early_duplicate   1 (default): gridcoll's duplicate of a communicator is made with it
//                     (MPI_Comm_dup, _split, ...), so its non-blocking calls run gridcoll's
//                     methods from the first; 0: at its first blocking call that runs a schedule
//                     or its first persistent collective's init call (no extra MPI context id
//                     until then: MPICH has about 2048 for all the communicators a process holds)
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/resolver.hpp"

namespace gridcoll::pmpi {

enum class DecisionSource : std::uint8_t { Builtin, Rules, Plogp };
enum class Progress : std::uint8_t { Calls, Thread, Auto };

struct Settings {
    bool enabled = true;
    std::string topology = "node";
    std::string topology_variable;  // where topology was set ("" = the default)
    std::string rules;
    DecisionSource decision = DecisionSource::Builtin;
    std::uint64_t min_bytes = 0;
    std::array<std::optional<ForcedMethod>, kCollectiveCount> forced;
    int verbose = 0;
    std::size_t cache = 256;
    Progress progress = Progress::Auto;
    bool early_duplicate = true;

    // progress=thread, or auto with a Topology that can have sites (not flat, not node).
    bool wants_progress_thread() const;
};

// One environment lookup: the value or nullptr.
using Getenv = std::function<const char*(const char*)>;

// Reads and checks every parameter. Throws Error naming the variable and its value (an unknown
// decision, a method the registry does not know for that collective, a bad number).
Settings read_settings(const Getenv& getenv);

std::string_view to_string(DecisionSource d);
std::string_view to_string(Progress p);

}  // namespace gridcoll::pmpi
