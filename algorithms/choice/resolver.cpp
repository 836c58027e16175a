// The one resolver of a method (gridcoll/algorithms/resolver.hpp).
#include "gridcoll/algorithms/resolver.hpp"

#include <array>

#include "../core/builders.hpp"
#include "builtin.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll {

namespace {

constexpr std::uint64_t kLargest = std::uint64_t{1} << 30;  // per-call total the PMPI library takes on

Resolution made(Method m, std::string choice, std::string reason) {
    Resolution r;
    r.named = m;
    r.method = std::move(m);
    r.choice = std::move(choice);
    r.reason = std::move(reason);
    return r;
}

bool flat(const Operation& op) { return !op.topology || op.topology->is_flat(); }

Resolution native(std::string reason) { return made(Method(std::string(kNativeMethod)), "", std::move(reason)); }

Resolution builtin(const Operation& op, const ResolverSettings& s) {
    Resolution r = native("builtin: the Topology is flat");
    if (!flat(op)) {
        const auto no_wan = detail::not_wan_sites(*op.topology);
        const bool graph = !no_wan && detail::wan_is_graph(*op.topology);
        const auto m = detail::wan_method(*op.topology, op.coll, op.bytes, graph);
        if (no_wan) r = native("builtin: " + *no_wan);
        else if (op.coll != Collective::Barrier && op.bytes < s.min_bytes)
            r = native("builtin: below min_bytes " + format_bytes(s.min_bytes));
        else if (m) r = made(*m, "", graph ? "builtin: sites joined by a WAN graph" : "builtin: sites joined by a WAN");
        else r = native("builtin: between WAN sites the MPI library's own is faster here");
    }
    r.choice = "auto:builtin";
    if (r.native() && !s.native_runs) {  // a model of gridcoll's schedules: the fixed default stands in
        r.method = r.named = model::default_method(op.coll);
        r.reason += "; the MPI library's own is not modelled here: " + to_string(r.method);
    }
    return r;
}

// Step 3: plain twolayer made explicit by the P-LogP optimiser.
void expand_twolayer(const Operation& op, Resolution& r) {
    const Method& m = r.method;
    if (op.coll != Collective::Bcast || m.algorithm != "twolayer" || !m.params.levels.empty() || flat(op)) return;
    const MethodParams chosen = detail::twolayer_choice(*op.topology, op.bytes, m.params.cluster_level, m.params.segment);
    if (chosen.levels.empty()) return;
    r.method = Method("twolayer", chosen);
    r.choice += (r.choice.empty() ? "" : "+") + ("plogp:" + to_string(r.method));
}

// Step 2: what `auto` becomes.
Resolution decide_auto(const Operation& op, const ResolverSettings& s) {
    const std::uint64_t key = op.coll == Collective::Barrier ? 0 : op.bytes;
    if (!s.rules.empty()) {
        if (const Method* m = s.rules.find(op.coll, op.ranks, key)) {
            std::string where = "rules " + s.rules_origin;
            for (const model::Rule& r : s.rules.rules())
                if (&r.method == m && r.line > 0) where += ":" + std::to_string(r.line);
            return made(*m, "auto:rules", std::move(where));
        }
        Resolution r = builtin(op, s);
        r.reason = "no rule in " + s.rules_origin + "; " + r.reason;
        return r;
    }
    if (s.plogp_bcast && op.coll == Collective::Bcast && !flat(op) && op.bytes >= s.min_bytes) {
        Resolution r = made(Method("twolayer"), "", "P-LogP optimiser (paper 000) from the Topology's link numbers");
        expand_twolayer(op, r);
        if (!r.method.params.levels.empty()) return r;
        r = builtin(op, s);
        r.reason = "P-LogP optimiser: the Topology has no link numbers; " + r.reason;
        return r;
    }
    return builtin(op, s);
}

// Step 4: what the MPI library below takes instead.
std::optional<std::string> needs_native(const Operation& op, const Resolution& r, const CallTraits& t) {
    const Algorithm& a = find_algorithm(op.coll, r.method.algorithm);
    const std::uint64_t elem = t.elem ? t.elem : op.elem();
    if (op.ranks < 2) return "one rank";
    if (op.coll != Collective::Barrier && op.bytes == 0) return "empty message";
    if (a.needs_topology && flat(op)) return r.method.algorithm + " needs a hierarchy; the Topology is flat";
    if (is_reduction(op.coll) && !t.reducible) return "datatype with gaps: the MPI library reduces it";
    if (is_reduction(op.coll) && !op.commutative && !a.keeps_order)
        return r.method.algorithm + " reorders operands; the operation is not commutative";
    if (op.coll != Collective::Barrier && op.bytes % elem != 0) return "message not whole elements";
    std::uint64_t total = op.bytes;
    if (op.coll == Collective::Scatter || op.coll == Collective::Gather || op.coll == Collective::Allgather ||
        op.coll == Collective::Alltoall || op.coll == Collective::ReduceScatterBlock || is_irregular(op.coll))
        total *= static_cast<std::uint64_t>(op.ranks);
    if (total > kLargest) return "over " + format_bytes(kLargest) + " per call";
    return std::nullopt;
}

}  // namespace

ResolverSettings rules_settings(const std::string& rules_file, bool native_runs) {
    ResolverSettings s;
    s.native_runs = native_runs;
    if (!rules_file.empty()) {
        s.rules = model::load_rules(rules_file);
        s.rules_origin = rules_file;
    }
    return s;
}

Resolution resolve(const Operation& op, const ResolverSettings& s, const CallTraits& traits) {
    const auto& forced = s.forced[static_cast<std::size_t>(op.coll)];
    Resolution r;
    if (forced && forced->method.algorithm != kAutoMethod) r = made(forced->method, "", "forced by " + forced->variable);
    else if (op.method.algorithm == kAutoMethod || forced) r = decide_auto(op, s);
    else r = made(op.method, "", "as asked");
    if (r.native()) return r;
    expand_twolayer(op, r);
    if (s.native_fallback)
        if (auto why = needs_native(op, r, traits)) r = native(std::move(*why));
    return r;
}

}  // namespace gridcoll
