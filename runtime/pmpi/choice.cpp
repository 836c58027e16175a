#include "choice.hpp"

#include <memory>

#include "gridcoll/algorithms/operation.hpp"

namespace gridcoll::pmpi {

ResolverSettings resolver_settings(const Settings& s) {
    ResolverSettings r;
    if (!s.rules.empty()) {  // read (and its errors reported) even when the decision is not by rules
        model::Rules rules = model::load_rules(s.rules);
        if (s.decision == DecisionSource::Rules) r.rules = std::move(rules);
        r.rules_origin = s.rules;
    }
    r.plogp_bcast = s.decision == DecisionSource::Plogp;
    r.min_bytes = s.min_bytes;
    r.forced = s.forced;
    r.native_fallback = true;
    return r;
}

Choice choose(const ResolverSettings& r, const Topology& t, const CallShape& call) {
    Operation op;
    op.coll = call.coll;
    op.ranks = call.ranks;
    op.bytes = call.bytes;
    op.commutative = call.commutative;
    op.method = Method(std::string(kAutoMethod));
    op.topology = std::shared_ptr<const Topology>(&t, [](const Topology*) {});
    return resolve(op, r, CallTraits{call.elem, call.reducible});
}

}  // namespace gridcoll::pmpi
