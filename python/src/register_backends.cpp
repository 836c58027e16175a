// Batches through every backend (gridcoll/backend.hpp): the closed forms, the event simulator,
// SMPI and — when built with the emulator and run as root — the emulated testbed. One function,
// run_batch, takes the batch and the backend's settings as keywords and calls `sink` with each
// result row (a dict) as soon as the backend has it; the GIL is released while C++ runs.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gridcoll/batch_options.hpp"
#include "gridcoll/event_backend.hpp"
#include "gridcoll/units.hpp"
#include "gridcoll/model/closed_form_backend.hpp"
#include "gridcoll/model/closed_forms.hpp"
#include "gridcoll/model_params.hpp"
#include "gridcoll/platform.hpp"
#include "gridcoll/sim_platform.hpp"
#include "gridcoll/smpi_backend.hpp"
#ifdef GRIDCOLL_HAVE_EMULATOR
#include "emulated_backend.hpp"
#include "testbed.hpp"
#include "testbed_runner.hpp"
#endif

namespace py = pybind11;

namespace gridcoll::bind {

namespace {

// Backend settings from a Python dict: each key read once; a key left over is an Error.
class Settings {
public:
    explicit Settings(const py::dict& d) {
        for (auto [k, v] : d) values_[py::cast<std::string>(k)] = py::reinterpret_borrow<py::object>(v);
    }
    template <class T>
    T get(const std::string& key, T fallback) {
        auto it = values_.find(key);
        if (it == values_.end()) return fallback;
        T v = py::cast<T>(it->second);
        values_.erase(it);
        return v;
    }
    void finish(const std::string& backend) const {
        if (values_.empty()) return;
        throw Error("backend '" + backend + "' has no setting '" + values_.begin()->first + "'");
    }

private:
    std::map<std::string, py::object> values_;
};

std::string program(const std::string& bin_dir, const std::string& name) { return bin_dir.empty() ? "" : bin_dir + "/" + name; }

std::unique_ptr<Backend> make_simulated(const std::string& backend, const sim::SimPlatform& plat, Settings& s) {
    const std::string bin_dir = s.get<std::string>("bin_dir", "");
    if (backend == "smpi") {
        sim::SmpiSettings st;
        st.network_model = s.get<std::string>("network_model", st.network_model);
        st.cfg = s.get<std::vector<std::string>>("cfg", {});
        st.smpi_algorithm = s.get<std::string>("smpi_algorithm", "");
        st.shared_malloc = s.get<bool>("shared_malloc", false);
        st.no_privatize = s.get<bool>("no_privatize", false);
        st.bench = program(bin_dir, "gridcoll-bench-smpi");
        s.finish(backend);
        return std::make_unique<sim::SmpiBackend>(plat, st);
    }
    if (backend == "event") {
        sim::EventSettings ev;
        ev.params = s.get<std::string>("params", "");
        ev.model = s.get<std::string>("model", ev.model);
        ev.sync_sends = s.get<bool>("sync_sends", false);
        ev.sync_from = parse_bytes(s.get<std::string>("sync_from", "0"));
        if (ev.sync_from > 0 && !ev.sync_sends) throw Error("event backend: sync_from needs sync_sends = true");
        ev.shared_links = s.get<std::string>("shared_links", "");
        ev.bench_timing = s.get<bool>("bench_timing", false);
        ev.rendezvous = s.get<bool>("rendezvous", false);
        ev.cross_traffic = s.get<double>("cross_traffic", 0.0);
        s.finish(backend);
        return sim::make_event_backend(plat, ev);
    }
    if (backend == "closed") {
        const std::string params_path = s.get<std::string>("params", plat.path);
        const std::string model = s.get<std::string>("model", "plogp");
        const std::string level = s.get<std::string>("level", "");
        const bool corrected = s.get<bool>("corrected", false);
        s.finish(backend);
        const model::ParamSet set = sim::load_model_params(params_path);
        return std::make_unique<model::ClosedFormBackend>(model::parse_model(model), sim::select_level(set, level), set.gamma,
                                                          corrected);
    }
    throw Error("unknown backend '" + backend + "' (valid: closed, event, smpi, emulated)");
}

}  // namespace

py::dict row_to_dict(const ResultRow& r) {
    py::dict d;
    d["backend"] = r.backend;
    d["collective"] = std::string(to_string(r.op.coll));
    d["method"] = to_string(r.op.method);
    d["algorithm"] = r.op.method.algorithm;
    d["ranks"] = r.op.ranks;
    d["bytes"] = r.op.bytes;
    d["root"] = r.op.root;
    d["reps"] = r.reps;
    d["time_s"] = r.time.median;
    d["min_s"] = r.time.min;
    d["max_s"] = r.time.max;
    d["verified"] = r.verified;
    d["choice"] = r.choice;
    return d;
}

void register_backends(py::module_& m) {
    m.def("backends", [] {
        std::vector<std::string> out{"closed", "event", "smpi"};
#ifdef GRIDCOLL_HAVE_EMULATOR
        out.push_back("emulated");
#endif
        return out;
    }, "Backends this build can run.");
    m.def(
        "run_batch",
        [](const std::string& backend, const std::string& platform, const std::string& collective,
           const std::vector<std::string>& methods, const std::vector<std::string>& sizes, int root, int reps, int warmup,
           const std::string& type, const std::string& op, bool verify, const std::string& placement, int ranks,
           const py::dict& settings, const std::function<void(py::dict)>& sink) {
            Settings s(settings);
            BatchOptions bo;
            bo.collective = collective;
            bo.algorithm.clear();
            for (const auto& x : methods) bo.algorithm += (bo.algorithm.empty() ? "" : ",") + x;
            bo.bytes.clear();
            for (const auto& x : sizes) bo.bytes += (bo.bytes.empty() ? "" : ",") + x;
            bo.reps = reps;
            bo.warmup = warmup;
            bo.root = root;
            bo.type = type;
            bo.op = op;
            bo.verify = verify;
            auto emit = [&](const ResultRow& row) {
                py::gil_scoped_acquire gil;
                sink(row_to_dict(row));
            };
            if (backend == "emulated") {
#ifdef GRIDCOLL_HAVE_EMULATOR
                emulate::TestbedOptions to;
                const std::string bin_dir = s.get<std::string>("bin_dir", "");
                to.delayline = program(bin_dir, "gridcoll-delayline");
                to.realtime = s.get<bool>("realtime", true);
                to.shaper = s.get<std::string>("shaper", "auto");
                emulate::MpiOptions mo;
                mo.yield_when_idle = s.get<bool>("yield_when_idle", true);
                mo.extra_mca = s.get<std::vector<std::string>>("mca", {});
                s.finish(backend);
                if (!placement.empty()) throw Error("the emulated backend places ranks as the description says (no placement)");
                py::gil_scoped_release nogil;
                emulate::require_privileges();
                auto log = [](const std::string& line) { std::fprintf(stderr, "gridcoll emulate: %s\n", line.c_str()); };
                auto tb = emulate::Testbed::up(platform, to, false, log);
                mo.ranks = ranks;
                const int n = static_cast<int>(platform::place_ranks(tb->platform(), ranks).size());
                const Batch batch = bo.make(n, std::make_shared<const Topology>(platform::topology(tb->platform(), n)), true);
                emulate::EmulatedBackend b(*tb, mo, program(bin_dir, "gridcoll-bench"));
                b.check(batch);
                b.run(batch, emit);
                return;
#else
                throw Error("this build has no emulator (GRIDCOLL_WITH_EMULATOR)");
#endif
            }
            const sim::SimPlatform plat = sim::load_sim_platform(platform, "", ranks, placement);
            auto b = make_simulated(backend, plat, s);
            Batch batch = bo.make(plat.ranks, plat.topology, backend == "smpi");
            b->check(batch);
            py::gil_scoped_release nogil;
            b->run(batch, emit);
        },
        py::arg("backend"), py::arg("platform"), py::arg("collective"), py::arg("methods"), py::arg("sizes"),
        py::arg("root") = 0, py::arg("reps") = 1, py::arg("warmup") = 0, py::arg("type") = "int32", py::arg("op") = "sum",
        py::arg("verify") = true, py::arg("placement") = "", py::arg("ranks") = 0, py::arg("settings") = py::dict(),
        py::arg("sink"),
        "Runs methods x sizes of one collective on a platform through a backend (closed, event, smpi, emulated); calls "
        "sink(row) per result row. root -1: every rank in turn. Settings: closed: model, params, level, corrected; event: "
        "model, params, sync_sends, sync_from, shared_links, bench_timing, rendezvous, cross_traffic; smpi: network_model, cfg, smpi_algorithm, shared_malloc, no_privatize; "
        "emulated: realtime, shaper, yield_when_idle, mca; all: bin_dir (where gridcoll's programs are).");
}

}  // namespace gridcoll::bind
