// The event simulator as a backend (gridcoll/backend.hpp): each point's schedules, of all
// ranks, replayed under per-level PLogP or LogGP parameters (event_sim.hpp) on the batch's
// Topology. Rows: backend "event-plogp" / "event-loggp" ("-links" with link contention,
// "-benchtimed" with the bench's timing method),
// verified "model"; repetitions differ only by root (every rank in turn, or the fixed one).
#pragma once

#include <memory>
#include <string>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/sim/event_sim.hpp"
#include "gridcoll/algorithms/model/params.hpp"
#include "gridcoll/platforms/sim_platform.hpp"

namespace gridcoll::sim {

class EventBackend final : public Backend {
public:
    EventBackend(model::ParamSet params, ModelKind kind = ModelKind::PLogP, SimOptions options = {});
    std::string name() const override;
    // validate(batch) plus: registry methods or 'auto' (chosen per point from the batch's rules
    // file, else the builtin decision, with the fixed default where it
    // would give the MPI library's own); 'native' runs only on an MPI.
    void check(const Batch& batch) const override;
    void run(const Batch& batch, const RowSink& sink) override;

private:
    model::ParamSet params_;
    ModelKind kind_;
    SimOptions options_;
};

// SimOptions::shared_link_levels from a comma-separated list of level names or indices of
// `t` (e.g. "wan"); Errors name the level and list the valid ones.
unsigned shared_link_levels(const Topology& t, const std::string& levels);

// The event backend of a platform as front ends configure it (gridcoll simulate --backend event,
// the Python runners): parameters from `params` (a parameter file; empty: derived from the
// platform's description), model "plogp" or "loggp", and the SimOptions switches. Errors: a
// platform without a Topology, an unknown model or level name, an unreadable parameter file.
struct EventSettings {
    std::string params;
    std::string model = "plogp";
    bool sync_sends = false;    // SimOptions::synchronous_sends
    std::uint64_t sync_from = 0;  // SimOptions::synchronous_from
    std::string shared_links;   // levels for shared_link_levels()
    bool bench_timing = false;  // SimOptions::bench_timing
    bool rendezvous = false;    // SimOptions::rendezvous
    double cross_traffic = 0;   // SimOptions::cross_traffic
};
std::unique_ptr<EventBackend> make_event_backend(const platform::SimPlatform& plat, const EventSettings& settings);

}  // namespace gridcoll::sim
