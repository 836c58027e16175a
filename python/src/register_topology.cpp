// Topology (the multilevel view of a communicator: per rank its cluster at every level, per level
// the link's numbers) and platforms: a description (.toml) with its placement, or SimGrid XML
// with a hostfile, as the simulation backends load them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "bindings.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace py = pybind11;

namespace gridcoll::bind {

void register_topology(py::module_& m) {
    py::class_<Topology, std::shared_ptr<Topology>>(m, "Topology", "Per rank, its cluster id at every level (0 = widest).")
        .def(py::init([](std::vector<std::vector<int>> clusters, std::vector<std::string> names,
                         std::vector<std::optional<std::pair<double, double>>> links) {
                 std::vector<std::optional<LevelLink>> l;
                 for (const auto& x : links) {
                     if (x) l.push_back(LevelLink{x->first, x->second});
                     else l.emplace_back();
                 }
                 return std::make_shared<Topology>(std::move(clusters), std::move(names), std::move(l));
             }),
             py::arg("clusters"), py::arg("level_names"), py::arg("links") = std::vector<std::optional<std::pair<double, double>>>{},
             "clusters[r]: rank r's cluster ids from level 0 down; links[l]: (latency_s, bandwidth_Bps) or None.")
        .def_static("flat", [](int size) { return std::make_shared<Topology>(Topology::flat(size)); }, py::arg("size"))
        .def_static("from_text", [](const std::string& text, const std::string& origin) {
            return std::make_shared<Topology>(Topology::from_text(text, origin));
        }, py::arg("text"), py::arg("origin") = "<text>", "Parses a rank map (see to_text).")
        .def_static("load", [](const std::string& path) { return std::make_shared<Topology>(Topology::load(path)); },
                    py::arg("path"), "Reads a rank-map file.")
        .def_property_readonly("size", &Topology::size)
        .def_property_readonly("levels", &Topology::levels)
        .def_property_readonly("level_names", [](const Topology& t) {
            std::vector<std::string> out;
            for (int l = 0; l < t.levels(); ++l) out.push_back(t.level_name(l));
            return out;
        })
        .def("depth", [](const Topology& t, int rank) {
            if (rank < 0 || rank >= t.size())
                throw Error("rank " + std::to_string(rank) + " out of range [0, " + std::to_string(t.size()) + ")");
            return t.depth(rank);
        }, py::arg("rank"))
        .def("cluster", [](const Topology& t, int rank, int level) {
            if (rank < 0 || rank >= t.size() || level < 0 || level >= t.levels())
                throw Error("rank " + std::to_string(rank) + " / level " + std::to_string(level) + " out of range");
            return t.cluster(rank, level);
        }, py::arg("rank"), py::arg("level"))
        .def("link", [](const Topology& t, int level) -> std::optional<std::pair<double, double>> {
            const auto l = t.link(level);
            if (!l) return std::nullopt;
            return std::make_pair(l->latency_s, l->bandwidth_Bps);
        }, py::arg("level"), "(latency_s, bandwidth_Bps) of the level's network, or None.")
        .def("common_level", &Topology::common_level, py::arg("a"), py::arg("b"))
        .def("members", &Topology::members, py::arg("rank"), py::arg("level"))
        .def("is_flat", &Topology::is_flat)
        .def("first", [](const Topology& t, int n) { return std::make_shared<Topology>(t.first(n)); }, py::arg("n"))
        .def("to_text", &Topology::to_text)
        .def("__repr__", [](const Topology& t) {
            return "<Topology " + std::to_string(t.size()) + " ranks, " + std::to_string(t.levels()) + " levels>";
        });

    py::class_<platform::SimPlatform>(m, "Platform", "A platform to simulate or emulate on, with its placed ranks.")
        .def(py::init([](const std::string& path, const std::string& hostfile, int ranks, const std::string& placement) {
                 return platform::load_sim_platform(path, hostfile, ranks, placement);
             }),
             py::arg("path"), py::arg("hostfile") = "", py::arg("ranks") = 0, py::arg("placement") = "",
             "A description (.toml; placement 'block' or 'round-robin' overrides its own) or SimGrid XML with a hostfile.")
        .def_readonly("path", &platform::SimPlatform::path)
        .def_readonly("hostfile", &platform::SimPlatform::hostfile)
        .def_readonly("ranks", &platform::SimPlatform::ranks)
        .def_property_readonly("topology", [](const platform::SimPlatform& p) {
            return p.topology ? std::make_shared<Topology>(*p.topology) : nullptr;
        })
        .def_property_readonly("name", [](const platform::SimPlatform& p) { return p.description ? p.description->name : std::string(); })
        .def_property_readonly("description", [](const platform::SimPlatform& p) {
            return p.description ? p.description->description : std::string();
        })
        .def("simgrid_xml", [](const platform::SimPlatform& p) {
            if (!p.description) throw Error("'" + p.path + "' is SimGrid XML already");
            return platform::simgrid_xml(*p.description);
        })
        .def("hosts", [](const platform::SimPlatform& p) {
            if (!p.description) throw Error("'" + p.path + "' places ranks by its hostfile '" + p.hostfile + "'");
            return platform::place_ranks(*p.description, p.ranks);
        }, "The host of every rank.")
        .def("__repr__", [](const platform::SimPlatform& p) {
            return "<Platform " + p.path + ", " + std::to_string(p.ranks) + " ranks>";
        });
}

}  // namespace gridcoll::bind
