#include "choice.hpp"

#include <array>

#include "gridcoll/operation.hpp"
#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"

namespace gridcoll::pmpi {

namespace {

constexpr std::uint64_t kLargest = std::uint64_t{1} << 30;  // per-call total the library takes on

// builtin's topology-aware method per collective (Collective's order; barrier: the MPI library).
const Method& builtin_method(Collective c) {
    static const std::array<Method, kCollectives> table = [] {
        std::array<Method, kCollectives> t;
        const auto set = [&](Collective c, const char* text) { t[static_cast<std::size_t>(c)] = parse_method(c, text); };
        set(Collective::Barrier, "native");
        set(Collective::Bcast, "wanstream");
        set(Collective::Reduce, "multilevel:seg=64K");
        set(Collective::Allreduce, "multitree:seg=64K");
        set(Collective::Scan, "eco");
        set(Collective::Scatter, "multilevel");
        set(Collective::Gather, "multilevel");
        set(Collective::Allgather, "multilevel:seg=64K");
        set(Collective::Alltoall, "eco");
        return t;
    }();
    return table[static_cast<std::size_t>(c)];
}

Choice native(std::string why) { return {Method(std::string(kNativeMethod)), std::move(why)}; }

Choice builtin(const Settings& s, const Topology& t, const CallShape& call) {
    if (t.is_flat()) return native("builtin: the Topology is flat");
    if (call.coll == Collective::Barrier) return native("builtin: barriers go to the MPI library");
    if (call.bytes < s.min_bytes) return native("builtin: below min_bytes " + format_bytes(s.min_bytes));
    return {builtin_method(call.coll), "builtin: topology-aware from min_bytes " + format_bytes(s.min_bytes)};
}

Choice decided(const Settings& s, const model::Rules& rules, const std::string& origin, const Topology& t,
               const CallShape& call) {
    if (s.decision == DecisionSource::Rules) {
        const std::uint64_t key = call.coll == Collective::Barrier ? 0 : call.bytes;
        if (const Method* m = rules.find(call.coll, call.ranks, key)) {
            for (const model::Rule& r : rules.rules())
                if (&r.method == m) return {*m, "rules " + origin + ":" + std::to_string(r.line)};
            return {*m, "rules " + origin};
        }
        Choice c = builtin(s, t, call);
        c.why = "no rule in " + origin + "; " + c.why;
        return c;
    }
    if (s.decision == DecisionSource::Plogp && call.coll == Collective::Bcast && !t.is_flat() &&
        call.bytes >= s.min_bytes) {
        Operation op;
        op.coll = call.coll;
        op.ranks = call.ranks;
        op.bytes = call.bytes;
        op.method = Method("twolayer");
        op.topology = std::shared_ptr<const Topology>(&t, [](const Topology*) {});
        const ExplicitMethod e = explicit_method(op);
        if (!e.how.empty()) return {e.method, "P-LogP optimiser (paper 000) from the Topology's link numbers"};
        Choice c = builtin(s, t, call);
        c.why = "P-LogP optimiser: the Topology has no link numbers; " + c.why;
        return c;
    }
    return builtin(s, t, call);
}

}  // namespace

Choice choose(const Settings& s, const model::Rules& rules, const std::string& origin, const Topology& t,
              const CallShape& call) {
    const auto& forced = s.forced[static_cast<std::size_t>(call.coll)];
    Choice c = forced && forced->method.algorithm != kAutoMethod
                   ? Choice{forced->method, "forced by " + forced->variable}
                   : decided(s, rules, origin, t, call);
    if (c.native()) return c;
    const Algorithm& a = find_algorithm(call.coll, c.method.algorithm);
    if (call.ranks < 2) return native("one rank");
    if (call.coll != Collective::Barrier && call.bytes == 0) return native("empty message");
    if (a.needs_topology && t.is_flat()) return native(c.method.algorithm + " needs a hierarchy; the Topology is flat");
    if (is_reduction(call.coll) && !call.reducible)
        return native("datatype with gaps: the MPI library reduces it");
    if (is_reduction(call.coll) && !call.commutative && !a.keeps_order)
        return native(c.method.algorithm + " reorders operands; the operation is not commutative");
    if (call.coll != Collective::Barrier && call.bytes % call.elem != 0) return native("message not whole elements");
    std::uint64_t total = call.bytes;
    if (call.coll == Collective::Scatter || call.coll == Collective::Gather || call.coll == Collective::Allgather ||
        call.coll == Collective::Alltoall)
        total *= static_cast<std::uint64_t>(call.ranks);
    if (total > kLargest) return native("over " + format_bytes(kLargest) + " per call");
    return c;
}

}  // namespace gridcoll::pmpi
