// The models: parameter sets (one per network level, from a file or derived from a platform's
// links), the closed forms of papers 002 and 000, paper 000's P-LogP optimiser and paper 002's
// model decision function.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/model/decision.hpp"
#include "gridcoll/algorithms/model/params_io.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"
#include "gridcoll/platforms/model_params.hpp"

namespace py = pybind11;

namespace gridcoll::bind {

namespace {

const model::PLogPParams& plogp_of(const model::LevelParams& l) {
    if (!l.plogp) throw Error("level '" + l.level + "' has no PLogP parameters");
    return *l.plogp;
}

model::Search parse_search(const std::string& s) {
    if (s == "heuristic") return model::Search::Heuristic;
    if (s == "exhaustive") return model::Search::Exhaustive;
    throw Error("search must be heuristic or exhaustive (got '" + s + "')");
}

// The parameter types: LevelParams, ParamSet.
void register_params(py::module_& m) {
    py::class_<model::LevelParams>(m, "LevelParams", "One network level's Hockney, LogGP and PLogP parameters.")
        .def_readonly("level", &model::LevelParams::level)
        .def_property_readonly("has_plogp", [](const model::LevelParams& l) { return l.plogp.has_value(); })
        .def_property_readonly("has_loggp", [](const model::LevelParams& l) { return l.loggp.has_value(); })
        .def_property_readonly("has_hockney", [](const model::LevelParams& l) { return l.hockney.has_value(); })
        .def_property_readonly("L", [](const model::LevelParams& l) { return plogp_of(l).L; }, "PLogP latency (s)")
        .def("g", [](const model::LevelParams& l, double m) { return plogp_of(l).g(m); }, py::arg("bytes"), "PLogP gap g(m) (s)")
        .def("os", [](const model::LevelParams& l, double m) { return plogp_of(l).os(m); }, py::arg("bytes"))
        .def("or_", [](const model::LevelParams& l, double m) { return plogp_of(l).or_(m); }, py::arg("bytes"))
        .def_property_readonly("loggp", [](const model::LevelParams& l) -> py::object {
            if (!l.loggp) return py::none();
            return py::dict(py::arg("L") = l.loggp->L, py::arg("o") = l.loggp->o, py::arg("g") = l.loggp->g,
                            py::arg("G") = l.loggp->G);
        });

    py::class_<model::ParamSet>(m, "ParamSet", "Parameters per Topology level, plus gamma (reduction s/byte).")
        .def_static("load", [](const std::string& path) { return platform::load_model_params(path); }, py::arg("path"),
                    "A parameter file (.toml of `gridcoll params`), or a platform description to derive them from.")
        .def_static("from_toml", [](const std::string& text, const std::string& origin) { return model::parse_params(text, origin); },
                    py::arg("text"), py::arg("origin") = "<text>")
        .def_readonly("levels", &model::ParamSet::levels)
        .def_readonly("gamma", &model::ParamSet::gamma)
        .def_readonly("origin", &model::ParamSet::origin)
        .def("level", [](const model::ParamSet& p, const std::string& name) { return platform::select_level(p, name); },
             py::arg("name") = "", "By name or index; empty: the only level, or the widest with parameters.")
        .def("to_toml", [](const model::ParamSet& p) { return model::to_toml(p); });
}

}  // namespace

void register_model(py::module_& m) {
    register_params(m);
    m.def("models", [] { return std::vector<std::string>{"hockney", "loggp", "plogp"}; });
    m.def("has_formula", [](const std::string& model, const std::string& collective, const std::string& algorithm) {
        return model::has_formula(model::parse_model(model), parse_collective(collective), algorithm);
    }, py::arg("model"), py::arg("collective"), py::arg("algorithm"));
    m.def("predict", [](const std::string& model, const std::string& collective, const std::string& algorithm, int ranks,
                        double bytes, double segment, int fanout, const model::LevelParams& level, double gamma,
                        bool corrected) -> std::optional<double> {
        const Collective c = parse_collective(collective);
        const auto whole = [](double v) { return std::isfinite(v) && v >= 0 && v == std::floor(v); };
        if (ranks < 1) throw Error("ranks must be >= 1 (got " + std::to_string(ranks) + ")");
        if (!whole(bytes) || !whole(segment))
            throw Error("bytes and segment must be whole numbers >= 0 (got " + format_number(bytes, 17) + ", " +
                        format_number(segment, 17) + ")");
        if (!(std::isfinite(gamma) && gamma >= 0)) throw Error("gamma must be a number >= 0 (got " + format_number(gamma, 17) + ")");
        if (fanout < 1) throw Error("fanout must be >= 1 (got " + std::to_string(fanout) + ")");
        if (corrected) return model::predict_corrected(c, algorithm, ranks, bytes, segment, fanout, level);
        return model::predict(model::parse_model(model), c, algorithm, ranks, bytes, segment, fanout, level, gamma);
    }, py::arg("model"), py::arg("collective"), py::arg("algorithm"), py::arg("ranks"), py::arg("bytes"),
          py::arg("segment") = 0.0, py::arg("fanout") = 2, py::arg("level"), py::arg("gamma") = 0.0, py::arg("corrected") = false,
          "Closed-form completion time (s) of papers 002 / 000, or None where the model has no formula.");

    m.def("optimize_single_layer", [](std::uint64_t bytes, int ranks, const model::LevelParams& level, const std::string& search,
                                      std::uint64_t max_segments) {
        model::SearchLimits lim;
        lim.max_segments = max_segments;
        const auto c = model::optimize_single_layer(bytes, ranks, plogp_of(level), parse_search(search), lim);
        return py::dict(py::arg("segment") = c.segment, py::arg("segments") = c.segments, py::arg("degree") = c.degree,
                        py::arg("time") = c.time, py::arg("evaluations") = c.evaluations);
    }, py::arg("bytes"), py::arg("ranks"), py::arg("level"), py::arg("search") = "heuristic", py::arg("max_segments") = 1u << 14,
          "Paper 000 §3.1: segment size and tree degree of the fastest single-layer broadcast.");
    m.def("optimize_two_layer", [](std::uint64_t bytes, int clusters, int cluster_size, const model::LevelParams& wan,
                                   const model::LevelParams& lan, const std::string& search, std::uint64_t max_segments,
                                   std::uint64_t segment, std::uint64_t min_segment) {
        model::SearchLimits lim;
        lim.max_segments = max_segments;
        lim.segment = segment;
        lim.min_segment = min_segment;
        const auto c = model::optimize_two_layer(bytes, clusters, cluster_size, plogp_of(wan), plogp_of(lan), parse_search(search), lim);
        return py::dict(py::arg("segment") = c.segment, py::arg("segments") = c.segments, py::arg("wan_degree") = c.wan_degree,
                        py::arg("lan_degree") = c.lan_degree, py::arg("time") = c.time, py::arg("evaluations") = c.evaluations);
    }, py::arg("bytes"), py::arg("clusters"), py::arg("cluster_size"), py::arg("wan"), py::arg("lan"),
          py::arg("search") = "heuristic", py::arg("max_segments") = 1u << 14, py::arg("segment") = 0,
          py::arg("min_segment") = 0,
          "Paper 000 §3.2: segment size and WAN / LAN degrees of the pipelined two-layer broadcast "
          "(segment: that size only; min_segment: none smaller unless the message is, as twolayer uses 64 KiB).");

    m.def("decide_by_model", [](const std::string& model, const std::string& collective, std::vector<std::uint64_t> bytes,
                                std::vector<int> ranks, const model::LevelParams& level, double gamma,
                                std::vector<std::string> algorithms, std::vector<std::uint64_t> segments, std::vector<int> fanouts) {
        const Collective c = parse_collective(collective);
        model::CandidateSpec spec;
        spec.algorithms = std::move(algorithms);
        if (!segments.empty()) spec.segments = std::move(segments);
        if (!fanouts.empty()) spec.fanouts = std::move(fanouts);
        const auto t = model::decide_by_model(model::parse_model(model), c, bytes, ranks, level, gamma, model::make_candidates(c, spec));
        py::list out;
        for (const auto& e : t.entries)
            out.append(py::dict(py::arg("ranks") = e.ranks, py::arg("bytes") = e.bytes, py::arg("method") = to_string(e.method),
                                py::arg("label") = model::method_label(c, e.method), py::arg("time_s") = e.time_s,
                                py::arg("compared") = e.compared));
        return out;
    }, py::arg("model"), py::arg("collective"), py::arg("bytes"), py::arg("ranks"), py::arg("level"), py::arg("gamma") = 0.0,
          py::arg("algorithms") = std::vector<std::string>{}, py::arg("segments") = std::vector<std::uint64_t>{},
          py::arg("fanouts") = std::vector<int>{},
          "Paper 002 §6.3: the argmin of the model's predictions over the candidates at every (ranks, bytes).");
}

}  // namespace gridcoll::bind
