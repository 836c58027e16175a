// Which method one intercepted call runs with, and why: the call turned into an Operation and
// handed to the one resolver (gridcoll/algorithms/resolver.hpp), with the library's settings —
// the same answer at every rank of the communicator, because it reads only what MPI requires to
// be equal everywhere: the collective, the communicator (size, Topology), the message size in
// bytes, and for reductions the datatype's element size and whether the operation commutes.
// Never the root's datatype layout, never anything measured on one rank.
#pragma once

#include <cstdint>
#include <string>

#include "gridcoll/algorithms/resolver.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "settings.hpp"

namespace gridcoll::pmpi {

namespace large_count {
bool in_c_form();  // large_count.hpp
}

struct CallShape {
    Collective coll = Collective::Bcast;
    int ranks = 1;
    std::uint64_t bytes = 0;      // m (collective.hpp); 0 for a barrier
    std::uint64_t elem = 1;       // reductions: the datatype's size
    bool commutative = true;      // reductions: the operation commutes
    bool reducible = true;        // reductions: a datatype gridcoll can reduce (contiguous elements)
    bool defined = true;          // reductions: MPI defines the operation on the datatype (mpi_defines)
    const char* label = "";       // the log's name of a call run as `coll` ("alltoallw"), else ""
    bool c_form = large_count::in_c_form();  // a large-count call: the log names its _c form
};

using Choice = Resolution;  // method kNativeMethod: the MPI library's own call; reason: for the log

// The resolver's settings for the library's Settings: forced methods, the decision source (its
// rules file read now; errors name its line), builtin's min_bytes, and the MPI library below
// taking what gridcoll does not.
ResolverSettings resolver_settings(const Settings& s);

Choice choose(const ResolverSettings& r, const Topology& topology, const CallShape& call);

}  // namespace gridcoll::pmpi
