// The closed forms, the event simulator and SMPI: their settings and how each opens.
#include <memory>

#include "gridcoll/algorithms/closed_form_backend.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/platforms/model_params.hpp"
#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/sim/event_backend.hpp"
#include "gridcoll/backends/smpi_settings.hpp"
#include "gridcoll/sim/smpi_backend.hpp"
#include "openers.hpp"

namespace gridcoll::backends {

namespace {

using T = SettingType;

const Setting kModelParams{"params", "--params", T::Text, "",
                           "parameter file (.toml; gridcoll params measure); default: derived from the platform's links"};

OpenedBackend on_platform(std::unique_ptr<Backend> b, const platform::SimPlatform& p, bool mpi) {
    OpenedBackend o;
    o.backend = std::move(b);
    o.ranks = p.ranks;
    o.topology = p.topology;
    o.mpi = mpi;
    return o;
}

}  // namespace

BackendInfo closed_info() {
    return {"closed", "the papers' closed forms (papers 000, 002) under one level's parameters", false,
            {{"model", "-m,--model", T::Text, "plogp", "the model: hockney, loggp or plogp", {"hockney", "loggp", "plogp"}},
             kModelParams,
             {"level", "-l,--level", T::Text, "", "which level's parameters (name or index; default: the widest with parameters)"},
             {"variant", "--variant", T::Text, "paper",
              "paper (as published) or corrected (PLogP broadcasts: the tree's own shape, splitted-binary's final exchange)",
              {"paper", "corrected"}}}};
}

OpenedBackend open_closed(const SettingReader& s, const Target& t) {
    const std::string params = s.text("params").empty() ? t.platform : s.text("params");
    if (params.empty()) throw Error("closed backend: give a platform description or a parameter file (--params)");
    const model::ParamSet set = platform::load_model_params(params);
    auto b = std::make_unique<model::ClosedFormBackend>(model::parse_model(s.text("model")),
                                                        platform::select_level(set, s.text("level")), set.gamma,
                                                        s.text("variant") == "corrected");
    if (t.platform.empty() || t.platform == s.text("params")) {  // no platform: ranks as given, no Topology
        if (t.ranks < 1) throw Error("closed backend: give the communicator size (-n) or a platform");
        OpenedBackend o;
        o.backend = std::move(b);
        o.ranks = t.ranks;
        return o;
    }
    return on_platform(std::move(b), platform::load_sim_platform(t.platform, t.hostfile, t.ranks, t.placement), false);
}

BackendInfo event_info() {
    return {"event", "the schedule event simulator: every rank's schedule replayed under per-level PLogP or LogGP", false,
            {{"model", "-m,--model", T::Text, "plogp", "the model: plogp or loggp", {"plogp", "loggp"}},
             kModelParams,
             {"shared_links", "--shared-links", T::Text, "",
              "levels (names or indices) whose messages share one link per cluster pair (contention; off by default)"},
             {"sync_sends", "--sync-sends", T::Flag, "false", "a send completes when its message arrives (rendezvous), not after os(m)"},
             {"sync_from", "--sync-from", T::Text, "0",
              "with sync_sends: only sends of at least this size (SMPI's detached threshold is 64K; 0: every send)"},
             {"rendezvous", "--rendezvous", T::Flag, "false",
              "a message's transfer starts only once its receive is posted (SimGrid's matching)"},
             {"cross_traffic", "--cross-traffic", T::Number, "0",
              "with shared_links: a message also loads its link's other direction by this fraction of a share "
              "(SimGrid's network/crosstraffic: 0.05)"},
             {"bench_timing", "--bench-timing", T::Flag, "false",
              "time as gridcoll-bench does on an MPI (a release from the root before, a report to it after)"}}};
}

OpenedBackend open_event(const SettingReader& s, const Target& t) {
    sim::EventSettings ev;
    ev.params = s.text("params");
    ev.model = s.text("model");
    ev.sync_sends = s.flag("sync_sends");
    ev.sync_from = parse_bytes(s.text("sync_from"));
    if (ev.sync_from > 0 && !ev.sync_sends) throw Error("event backend: sync_from needs sync_sends (--sync-from needs --sync-sends)");
    ev.shared_links = s.text("shared_links");
    ev.bench_timing = s.flag("bench_timing");
    ev.rendezvous = s.flag("rendezvous");
    ev.cross_traffic = s.number("cross_traffic");
    const platform::SimPlatform p = platform::load_sim_platform(t.platform, t.hostfile, t.ranks, t.placement);
    return on_platform(sim::make_event_backend(p, ev), p, false);
}

BackendInfo smpi_info() {
    return {"smpi", "gridcoll-bench-smpi, the same MPI code as on Open MPI, under SimGrid's smpirun", true,
            {{"network_model", "--network-model", T::Text, "ideal",
              "ideal (latency + size/bandwidth) or smpi (SimGrid's calibrated SMPI model)", {"ideal", "smpi"}},
             {"cfg", "--cfg", T::List, "", "extra SimGrid configuration KEY:VALUE (repeatable)"},
             {"smpi_algorithm", "--smpi-algorithm", T::Text, "", "SMPI's algorithm used by 'native', e.g. binomial_tree"},
             {"shared_malloc", "--shared-malloc", T::Flag, "false", "fold buffers with SMPI_SHARED_MALLOC (large runs; no verification)"},
             {"no_privatize", "--no-privatize", T::Flag, "false", "share globals between simulated ranks (faster start for many ranks)"},
             {"bench", "--bench", T::Text, "", "path of gridcoll-bench-smpi (default: next to gridcoll)"},
             {"verbose", "-v,--verbose", T::Flag, "false", "show the smpirun command and SimGrid's log"}}};
}

namespace {

sim::SmpiSettings read_smpi(const SettingReader& s) {
    sim::SmpiSettings st;
    st.network_model = s.text("network_model");
    st.cfg = s.list("cfg");
    for (const std::string& c : st.cfg)  // SimGrid aborts with a backtrace on a value without a key
        if (const auto colon = c.find(':'); colon == std::string::npos || colon == 0 || colon + 1 == c.size())
            throw Error("smpi backend: cfg (--cfg) takes KEY:VALUE, as SimGrid's --cfg does (got '" + c + "')");
    st.smpi_algorithm = s.text("smpi_algorithm");
    st.shared_malloc = s.flag("shared_malloc");
    st.no_privatize = s.flag("no_privatize");
    st.verbose = s.flag("verbose");
    st.bench = s.text("bench");
    return st;
}

}  // namespace

const std::vector<std::string> kSmpiRunKeys = {"network_model", "cfg", "verbose"};

sim::SmpiSettings smpi_settings(const SettingValues& values) { return read_smpi(SettingReader(find_backend("smpi"), values)); }

OpenedBackend open_smpi(const SettingReader& s, const Target& t) {
    sim::SmpiSettings st = read_smpi(s);
    st.bench = program(t, "gridcoll-bench-smpi", st.bench);
    const platform::SimPlatform p = platform::load_sim_platform(t.platform, t.hostfile, t.ranks, t.placement);
    OpenedBackend o = on_platform(std::make_unique<sim::SmpiBackend>(p, st), p, true);
    o.verifies = !st.shared_malloc;
    return o;
}

}  // namespace gridcoll::backends
