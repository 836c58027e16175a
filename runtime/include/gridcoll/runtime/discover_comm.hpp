// Topology discovery on a communicator (gridcoll/discovery.hpp over MPI): rank 0 runs the
// search and times one pair at a time — it tells the two ranks to exchange, the first reports
// the minimum round trip — while every other rank waits for its next order (paper 003 §3: one
// measurement at a time, so measurements do not disturb each other). Open MPI and SMPI alike.
//
// A cache file is a rank map (Topology::to_text) headed by the job it was measured for: the
// number of ranks and a fingerprint of the hosts in rank order (MPI_Get_processor_name). A
// later run reuses it only when both match; otherwise it says why and stops.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "gridcoll/algorithms/discovery.hpp"

namespace gridcoll {

// Collective over `comm`. Every rank gets the Topology; the counts, levels and ambiguous pairs
// are filled at rank 0 only. Throws Error (at every rank) for a communicator of one rank.
discovery::Result discover_comm(MPI_Comm comm, const discovery::Options& options);

// The fingerprint of the hosts of `comm`'s ranks (the same at every rank).
std::string host_fingerprint(MPI_Comm comm);

struct DiscoveredTopology {
    std::shared_ptr<const Topology> topology;
    bool from_cache = false;
    double seconds = 0;      // wall time of the discovery (0 from the cache)
    discovery::Result run;   // rank 0, when measured
};

// The cache's Topology when `cache` names a file written for this job, else a discovery (and
// the cache written, when named, by rank 0, atomically). Collective; Error at every rank for a
// cache of another job, or when no structure is found and `allow_flat` is false.
DiscoveredTopology discovered_topology(MPI_Comm comm, const std::string& cache, const discovery::Options& options,
                                       bool allow_flat);

// The cache file's text for a discovery: header lines, then the rank map.
std::string cache_text(const Topology& t, int ranks, const std::string& fingerprint);

}  // namespace gridcoll
