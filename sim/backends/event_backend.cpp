#include "gridcoll/sim/event_backend.hpp"

#include "gridcoll/algorithms/resolver.hpp"
#include "gridcoll/platforms/model_params.hpp"
#include "gridcoll/algorithms/text.hpp"

namespace gridcoll::sim {

EventBackend::EventBackend(model::ParamSet params, ModelKind kind, SimOptions options)
    : params_(std::move(params)), kind_(kind), options_(options) {}

std::string EventBackend::name() const {
    return std::string("event-") + (kind_ == ModelKind::LogGP ? "loggp" : "plogp") + (options_.shared_link_levels ? "-links" : "") +
           (options_.cross_traffic > 0 ? "-cross" : "") +
           (options_.rendezvous ? "-rdv" : "") +
           (options_.bench_timing ? "-benchtimed" : "");
}

void EventBackend::check(const Batch& batch) const {
    validate(batch);
    for (const Method& m : batch.methods)
        if (m.algorithm == kNativeMethod)
            throw Error("the event simulator replays gridcoll's schedules; 'native' runs only on an MPI (--backend smpi)");
    if (batch.timing == Timing::PerRank)
        throw Error("the event simulator predicts one call; per-rank timing (back-to-back calls) needs an MPI backend");
    if (batch.timing == Timing::Sync && options_.bench_timing)
        throw Error("sync timing is the event simulator's own (a simultaneous start); leave out --bench-timing");
}

void EventBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const ResolverSettings settings = rules_settings(batch.rules, false);  // no MPI library here
    for (Operation op : batch.operations()) {
        Resolution how = resolve(op, settings);  // as the MPI side decides (runtime/mpi/comm_context.cpp)
        op.method = std::move(how.named);  // the builder fills in what the optimiser chose, alike
        std::string choice = std::move(how.choice);
        std::vector<double> times;
        for (int rep = 0; rep < batch.reps; ++rep) {
            const int root = op.root != kEveryRoot ? op.root : rep % op.ranks;
            const Request q = op.request(0, root);
            times.push_back(simulate(q, op.method.algorithm, op.topology.get(), params_, kind_, options_).time);
        }
        op.topology = nullptr;
        sink(ResultRow{name(), std::move(op), batch.reps, summarize(std::move(times)), "model", choice,
                       options_.bench_timing ? "root" : "model", 0});
    }
}

unsigned shared_link_levels(const Topology& t, const std::string& levels) {
    unsigned mask = 0;
    for (const std::string& name : levels.empty() ? std::vector<std::string>{} : split_list(levels)) {
        int l = -1;
        std::string valid;
        for (int k = 0; k < t.levels(); ++k) {
            if (t.level_name(k) == name || std::to_string(k) == name) l = k;
            valid += (valid.empty() ? "" : ", ") + t.level_name(k);
        }
        if (l < 0) throw Error("shared links: no level '" + name + "' (levels: " + valid + ")");
        if (l + 1 >= t.levels())
            throw Error("shared links: level '" + name + "' is the deepest; links join clusters of the level below it");
        mask |= 1u << l;
    }
    return mask;
}

std::unique_ptr<EventBackend> make_event_backend(const platform::SimPlatform& plat, const EventSettings& settings) {
    if (!plat.topology)
        throw Error("the event backend needs the platform's Topology: a description (.toml), or XML with gridcoll built "
                    "against SimGrid");
    if (settings.model != "plogp" && settings.model != "loggp")
        throw Error("event backend: model must be plogp or loggp (got '" + settings.model + "')");
    SimOptions opt;
    opt.synchronous_sends = settings.sync_sends;
    opt.synchronous_from = settings.sync_from;
    opt.shared_link_levels = shared_link_levels(*plat.topology, settings.shared_links);
    opt.bench_timing = settings.bench_timing;
    opt.rendezvous = settings.rendezvous;
    if (settings.cross_traffic < 0 || settings.cross_traffic > 1)
        throw Error("event backend: cross traffic must be a fraction from 0 to 1 (got " + format_number(settings.cross_traffic) + ")");
    if (settings.cross_traffic > 0 && opt.shared_link_levels == 0)
        throw Error("event backend: cross traffic is a load on shared links' other direction: it needs shared links (--shared-links)");
    opt.cross_traffic = settings.cross_traffic;
    // A parameter file; else the description's links; else (SimGrid XML) the imported routes.
    auto params = !settings.params.empty() || plat.description
                      ? platform::load_model_params(settings.params.empty() ? plat.path : settings.params)
                      : platform::params_from_topology(*plat.topology, "derived from the routes of SimGrid platform " + plat.path);
    const auto need = static_cast<std::size_t>(plat.topology->levels());
    if (params.levels.size() < need)
        throw Error((settings.params.empty() ? plat.path : settings.params) + ": parameters of " + std::to_string(params.levels.size()) +
                    " level(s), but the platform's Topology has " + std::to_string(need) +
                    " (a parameter file gives one [[level]] per level, the widest first)");
    const auto kind = settings.model == "loggp" ? ModelKind::LogGP : ModelKind::PLogP;
    return std::make_unique<EventBackend>(std::move(params), kind, opt);
}

}  // namespace gridcoll::sim
