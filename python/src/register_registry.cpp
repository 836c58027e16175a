// The registry (every algorithm of every collective, with what it reads), methods in their text
// form, one rank's schedule and the symbolic checker.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings.hpp"
#include "gridcoll/algorithms/checker.hpp"
#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/datatype.hpp"
#include "gridcoll/algorithms/method.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace py = pybind11;

namespace gridcoll::bind {

namespace {

Request make_request(const std::string& collective, int ranks, int rank, int root, std::uint64_t bytes,
                     const std::string& method, const std::string& type, bool commutative, const Topology* topology) {
    Request r;
    r.coll = parse_collective(collective);
    r.size = ranks;
    r.rank = rank;
    r.root = root;
    r.bytes = bytes;
    r.elem = is_reduction(r.coll) ? elem_size(parse_elem_type(type)) : 1;
    r.commutative = commutative;
    r.params = parse_method(r.coll, method).params;
    r.topology = topology;
    return r;
}

std::string algorithm_of(const std::string& collective, const std::string& method) {
    return parse_method(parse_collective(collective), method).algorithm;
}

}  // namespace

void register_registry(py::module_& m) {
    m.def("collectives", [] {
        std::vector<std::string> out;
        for (Collective c : all_collectives()) out.emplace_back(to_string(c));
        return out;
    }, "Names of every collective.");
    m.def("algorithms", [](const std::string& collective) {
        py::list out;
        for (const Algorithm& a : all_algorithms()) {
            if (!collective.empty() && to_string(a.coll) != collective) continue;
            py::dict d;
            d["collective"] = std::string(to_string(a.coll));
            d["name"] = a.name;
            d["segmented"] = a.segmented;
            d["uses_fanout"] = a.uses_fanout;
            d["uses_levels"] = a.uses_levels;
            d["needs_topology"] = a.needs_topology;
            d["keeps_order"] = a.keeps_order;
            d["description"] = a.description;
            out.append(d);
        }
        if (!collective.empty() && out.empty()) parse_collective(collective);  // the error lists the valid names
        return out;
    }, py::arg("collective") = "", "Registry rows (dicts), of one collective or of all.");
    m.def("canonical_method", [](const std::string& collective, const std::string& text) {
        return to_string(parse_method(parse_collective(collective), text));
    }, py::arg("collective"), py::arg("method"),
          "The method's canonical text form; Error for an unknown algorithm or a key it does not read.");
    m.def("parse_bytes", [](const std::string& text) { return parse_bytes(text); }, py::arg("text"),
          "'64K' -> 65536 (K, M, G are powers of 1024).");
    m.def("format_bytes", [](std::uint64_t b) { return format_bytes(b); }, py::arg("bytes"));
    m.def("schedule_text", [](const std::string& collective, const std::string& method, int ranks, int rank, int root,
                              std::uint64_t bytes, const std::string& type, std::shared_ptr<const Topology> topology) {
        const Request r = make_request(collective, ranks, rank, root, bytes, method, type, true, topology.get());
        return build_schedule(r, algorithm_of(collective, method)).to_string();
    }, py::arg("collective"), py::arg("method"), py::arg("ranks"), py::arg("rank"), py::arg("root") = 0, py::arg("bytes"),
          py::arg("type") = "int32", py::arg("topology") = nullptr, "One rank's schedule, one line per step.");
    m.def("check", [](const std::string& collective, const std::string& method, int ranks, int root, std::uint64_t bytes,
                      const std::string& type, bool commutative, std::shared_ptr<const Topology> topology) {
        const Request r = make_request(collective, ranks, 0, root, bytes, method, type, commutative, topology.get());
        const CheckResult c = check_algorithm(r, algorithm_of(collective, method));
        py::dict d;
        d["ok"] = c.ok;
        d["error"] = c.error;
        d["messages"] = c.messages;
        d["message_bytes"] = c.message_bytes;
        d["steps"] = c.steps;
        return d;
    }, py::arg("collective"), py::arg("method"), py::arg("ranks"), py::arg("root") = 0, py::arg("bytes"),
          py::arg("type") = "int32", py::arg("commutative") = true, py::arg("topology") = nullptr,
          "Builds every rank's schedule and proves it correct symbolically (no MPI).");
}

}  // namespace gridcoll::bind
