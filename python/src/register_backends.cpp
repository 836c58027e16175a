// Batches through every backend, opened by the one front door (gridcoll/backends/backends.hpp):
// the closed forms, the event simulator, SMPI, Open MPI here and — as root — the emulated testbed.
// run_batch takes the batch and the backend's settings (a dict with the keys of the backend's
// table, backend_settings()) and calls `sink` with each result row (a dict) as soon as the
// backend has it; the GIL is released while C++ runs.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gridcoll/algorithms/batch_options.hpp"
#include "gridcoll/backends/backends.hpp"
#ifdef GRIDCOLL_HAVE_EMULATOR
#include "gridcoll/backends/testbed_settings.hpp"
#endif

namespace py = pybind11;

namespace gridcoll::bind {

namespace {

// A settings dict as the backends' setting values: True/False as "true"/"false", a list or tuple as
// several values, anything else as its str(); "bin_dir" is where this build's programs are.
backends::SettingValues setting_values(const py::dict& d, std::string& bin_dir) {
    backends::SettingValues out;
    for (auto [k, v] : d) {
        const std::string key = py::cast<std::string>(k);
        if (key == "bin_dir") {
            bin_dir = py::cast<std::string>(v);
            continue;
        }
        auto& values = out[key];
        auto text = [](py::handle x) {
            if (py::isinstance<py::bool_>(x)) return std::string(py::cast<bool>(x) ? "true" : "false");
            return py::cast<std::string>(py::str(x));
        };
        if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v))
            for (py::handle x : v) values.push_back(text(x));
        else
            values.push_back(text(v));
    }
    return out;
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
    d["timing"] = r.timing;
    d["counts"] = is_irregular(r.op.coll) ? std::string(to_string(r.op.counts)) : std::string();
    return d;
}

void register_backends(py::module_& m) {
    m.def("backends", [] {
        std::vector<std::string> out;
        for (const auto& b : backends::backend_list()) out.push_back(b.name);
        return out;
    }, "Backends this build can run.");
    m.def("backend_settings", [](const std::string& name) {
        py::list out;
        for (const auto& s : backends::find_backend(name).settings)
            out.append(py::dict(py::arg("key") = s.key, py::arg("option") = s.flag, py::arg("default") = s.fallback,
                                py::arg("help") = s.help, py::arg("choices") = s.choices));
        return out;
    }, py::arg("backend"), "The settings a backend takes: key, command-line option, default, help, choices.");
    m.def("testbed_layout", [](const std::string& platform, const py::dict& settings) {
#ifdef GRIDCOLL_HAVE_EMULATOR
        std::string bin_dir;
        const auto values = setting_values(settings, bin_dir);
        backends::SettingValues testbed;  // only what builds the testbed
        for (const auto& k : backends::kTestbedKeys)
            if (values.count(k)) testbed[k] = values.at(k);
        return backends::testbed_layout(platform, testbed);
#else
        (void)platform, (void)settings;
        return std::string("this build has no emulator");
#endif
    }, py::arg("platform"), py::arg("settings"),
       "For a report: the time dilation and the hosts' machines of the emulated testbed of `platform` with these settings.");
    m.def(
        "run_batch",
        [](const std::string& backend, const std::string& platform, const std::string& collective,
           const std::vector<std::string>& methods, const std::vector<std::string>& sizes, int root, int reps, int warmup,
           const std::string& type, const std::string& op, bool verify, const std::string& placement, int ranks,
           const std::string& timing, const std::string& counts, const py::dict& settings,
           const std::function<void(py::dict)>& sink) {
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
            bo.timing = timing;
            bo.counts = counts;
            backends::Target target;
            const backends::SettingValues values = setting_values(settings, target.bin_dir);
            target.platform = platform;
            target.ranks = ranks;
            target.placement = placement;
            target.log = [](const std::string& line) { std::fprintf(stderr, "gridcoll %s\n", line.c_str()); };
            auto emit = [&](const ResultRow& row) {
                py::gil_scoped_acquire gil;
                sink(row_to_dict(row));
            };
            py::gil_scoped_release nogil;
            backends::OpenedBackend opened = backends::open_backend(backend, values, target);
            const Batch batch = opened.batch(bo);
            opened.backend->run(batch, emit);
        },
        py::arg("backend"), py::arg("platform"), py::arg("collective"), py::arg("methods"), py::arg("sizes"),
        py::arg("root") = 0, py::arg("reps") = 1, py::arg("warmup") = 0, py::arg("type") = "int32", py::arg("op") = "sum",
        py::arg("verify") = true, py::arg("placement") = "", py::arg("ranks") = 0, py::arg("timing") = "root",
        py::arg("counts") = "even", py::arg("settings") = py::dict(),
        py::arg("sink"),
        "Runs methods x sizes of one collective on a platform through a backend (backends()); calls sink(row) per "
        "result row. root -1: every rank in turn. counts: even, ramp or zeros (irregular collectives). settings: the backend's (backend_settings(name)), plus bin_dir "
        "(where gridcoll's programs are).");
}

}  // namespace gridcoll::bind
