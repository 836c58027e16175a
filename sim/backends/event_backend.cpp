#include "gridcoll/event_backend.hpp"

#include "gridcoll/model/rules.hpp"
#include "gridcoll/model_params.hpp"
#include "gridcoll/text.hpp"

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
}

void EventBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const model::Rules rules = batch.rules.empty() ? model::Rules{} : model::load_rules(batch.rules);
    for (Operation op : batch.operations()) {
        std::string choice;  // as the MPI side decides 'auto' (algorithms/mpi/comm_context.cpp)
        if (op.method.algorithm == kAutoMethod) {
            model::AutoChoice c = model::choose_auto(rules, op.coll, op.ranks, op.bytes);
            op.method = std::move(c.method);
            choice = std::move(c.how);
        }
        const ExplicitMethod e = explicit_method(op);  // the builder makes the same choice itself
        if (!e.how.empty()) choice += (choice.empty() ? "" : "+") + e.how;
        std::vector<double> times;
        for (int rep = 0; rep < batch.reps; ++rep) {
            const int root = op.root != kEveryRoot ? op.root : rep % op.ranks;
            const Request q = op.request(0, root);
            times.push_back(simulate(q, op.method.algorithm, op.topology.get(), params_, kind_, options_).time);
        }
        op.topology = nullptr;
        sink(ResultRow{name(), std::move(op), batch.reps, summarize(std::move(times)), "model", choice, 0});
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

std::unique_ptr<EventBackend> make_event_backend(const SimPlatform& platform, const EventSettings& settings) {
    if (!platform.topology)
        throw Error("the event backend needs the platform's Topology: a description (.toml), or XML with gridcoll built "
                    "against SimGrid");
    if (settings.model != "plogp" && settings.model != "loggp")
        throw Error("event backend: model must be plogp or loggp (got '" + settings.model + "')");
    SimOptions opt;
    opt.synchronous_sends = settings.sync_sends;
    opt.synchronous_from = settings.sync_from;
    opt.shared_link_levels = shared_link_levels(*platform.topology, settings.shared_links);
    opt.bench_timing = settings.bench_timing;
    opt.rendezvous = settings.rendezvous;
    if (settings.cross_traffic < 0 || settings.cross_traffic > 1)
        throw Error("event backend: cross traffic must be a fraction from 0 to 1 (got " + format_number(settings.cross_traffic) + ")");
    if (settings.cross_traffic > 0 && opt.shared_link_levels == 0)
        throw Error("event backend: cross traffic is a load on shared links' other direction: it needs shared links (--shared-links)");
    opt.cross_traffic = settings.cross_traffic;
    // A parameter file; else the description's links; else (SimGrid XML) the imported routes.
    auto params = !settings.params.empty() || platform.description
                      ? load_model_params(settings.params.empty() ? platform.path : settings.params)
                      : params_from_topology(*platform.topology, "derived from the routes of SimGrid platform " + platform.path);
    const auto kind = settings.model == "loggp" ? ModelKind::LogGP : ModelKind::PLogP;
    return std::make_unique<EventBackend>(std::move(params), kind, opt);
}

}  // namespace gridcoll::sim
