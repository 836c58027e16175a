#include "gridcoll/algorithms/operation.hpp"
#include "gridcoll/algorithms/topology.hpp"

#include <charconv>

#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll {

std::uint64_t Operation::elem() const { return is_reduction(coll) ? elem_size(type) : 1; }

Request Operation::request(int rank, int r) const {
    Request q;
    q.coll = coll;
    q.size = ranks;
    q.rank = rank;
    q.root = r;
    q.bytes = coll == Collective::Barrier ? 0 : bytes;
    q.elem = elem();
    q.commutative = commutative;
    q.params = method.params;
    q.topology = topology.get();
    q.counts = make_counts(coll, ranks, q.bytes, q.elem, counts);
    return q;
}

std::string to_string(const Operation& op) {
    std::string s = std::string(to_string(op.coll)) + " ranks=" + std::to_string(op.ranks);
    if (is_rooted(op.coll)) s += " root=" + (op.root == kEveryRoot ? std::string("each") : std::to_string(op.root));
    if (op.coll != Collective::Barrier) s += " bytes=" + format_bytes(op.bytes);
    if (is_irregular(op.coll)) s += " counts=" + std::string(to_string(op.counts));
    if (is_reduction(op.coll)) {
        s += " type=" + std::string(to_string(op.type)) + " op=" + std::string(to_string(op.op));
        if (!op.commutative) s += " commutative=no";
    }
    return s + " method=" + to_string(op.method);
}

Operation parse_operation(std::string_view text) {
    const auto words = split_list(text, ' ');
    Operation op;
    bool have_coll = false;
    for (const std::string& w : words) {
        if (w.empty()) continue;
        if (!have_coll) {
            op.coll = parse_collective(w);
            have_coll = true;
            continue;
        }
        const auto eq = w.find('=');
        if (eq == std::string::npos)
            throw Error("operation '" + std::string(text) + "': expected key=value, got '" + w + "'");
        const std::string key = w.substr(0, eq), value = w.substr(eq + 1);
        const auto whole = [&](int& out) {
            const auto r = std::from_chars(value.data(), value.data() + value.size(), out);
            if (r.ec != std::errc() || r.ptr != value.data() + value.size())
                throw Error("operation '" + std::string(text) + "': " + key + " '" + value + "' is not a whole number");
        };
        if (key == "ranks") whole(op.ranks);
        else if (key == "root" && value == "each") op.root = kEveryRoot;
        else if (key == "root") whole(op.root);
        else if (key == "bytes") op.bytes = parse_bytes(value);
        else if (key == "type") op.type = parse_elem_type(value);
        else if (key == "op") op.op = parse_reduce_op(value);
        else if (key == "commutative" && (value == "yes" || value == "no")) op.commutative = value == "yes";
        else if (key == "method") op.method = parse_method_text(value);
        else if (key == "counts") op.counts = parse_count_pattern(value);
        else
            throw Error("operation '" + std::string(text) + "': unknown key '" + key +
                        "' (known: ranks, root, bytes, type, op, commutative, counts, method)");
    }
    if (!have_coll) throw Error("operation '" + std::string(text) + "': no collective");
    if (!op.method.algorithm.empty()) op.method = check_method(op.coll, op.method);
    return op;
}

void validate(const Operation& op) {
    const auto fail = [&](const std::string& why) { throw Error(to_string(op) + ": " + why); };
    if (op.ranks < 1) fail("ranks must be >= 1");
    if (is_rooted(op.coll) && op.root != kEveryRoot && (op.root < 0 || op.root >= op.ranks))
        fail("root " + std::to_string(op.root) + " is not one of the " + std::to_string(op.ranks) + " ranks");
    if (op.coll != Collective::Barrier && op.bytes % op.elem() != 0)
        fail("message size " + std::to_string(op.bytes) + " bytes is not a multiple of the " +
             std::string(to_string(op.type)) + " element size " + std::to_string(op.elem()));
    if (op.method.algorithm.empty()) fail("no method");
    try {
        check_method(op.coll, op.method);
    } catch (const Error& e) {
        fail(e.what());
    }
    if (op.topology && op.topology->size() != op.ranks)
        fail("the topology has " + std::to_string(op.topology->size()) + " ranks");
    if (op.method.algorithm != kNativeMethod && op.method.algorithm != kAutoMethod) {
        const Algorithm& a = find_algorithm(op.coll, op.method.algorithm);
        if (a.needs_topology && !op.topology)
            fail("algorithm '" + a.name + "' follows the network's hierarchy and needs a Topology (a platform, or a rank map)");
        if (a.needs_topology && op.topology && op.topology->is_flat() && op.ranks > 1)
            fail("algorithm '" + a.name + "' follows the network's hierarchy, but the Topology is flat (all " +
                 std::to_string(op.ranks) + " ranks in one cluster at every level): give a platform or rank map "
                 "with several clusters");
    }
}

}  // namespace gridcoll
