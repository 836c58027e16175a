// The event-simulator backend of `gridcoll simulate`: replays the schedules of all ranks under
// per-level PLogP (or LogGP) parameters (sim/) instead of running them under SMPI, and prints
// the same CSV (backend "event-plogp" / "event-loggp").
#pragma once

#include <string>
#include <vector>

namespace gridcoll::cli {

struct EventRun {
    std::string platform, hostfile, params, model = "plogp";
    std::string collective, bytes, segment;
    std::vector<std::string> algorithms;  // registry names
    int ranks = 0, fanout = 2, reps = 1, root = -1;
    std::string shared_links;  // comma-separated level names or indices (SimOptions::shared_link_levels)
    bool sync_sends = false;   // SimOptions::synchronous_sends
};

// Prints the CSV header and one row per (algorithm, size); returns the exit status.
int run_event_backend(const EventRun& r);

}  // namespace gridcoll::cli
