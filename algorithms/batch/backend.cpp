#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/resolver.hpp"

namespace gridcoll {

std::vector<Operation> Batch::operations() const {
    std::vector<Operation> ops;
    ops.reserve(methods.size() * sizes.size());
    for (const Method& m : methods)
        for (std::uint64_t bytes : sizes) {
            if (shape.coll == Collective::Barrier && bytes != sizes.front()) continue;  // a barrier has no size: one point
            Operation op = shape;
            op.method = m;
            op.bytes = shape.coll == Collective::Barrier ? 0 : bytes;
            ops.push_back(std::move(op));
        }
    return ops;
}

void validate(const Batch& b) {
    if (b.methods.empty()) throw Error("no method to run");
    if (b.sizes.empty()) throw Error("no message size to run");
    if (b.reps < 1) throw Error("repetitions must be >= 1 (got " + std::to_string(b.reps) + ")");
    if (b.warmup < 0) throw Error("warm-up repetitions must be >= 0 (got " + std::to_string(b.warmup) + ")");
    // 'auto' points: the method each becomes must run there too (e.g. no hierarchical rule on a
    // flat Topology). The rules file is read here, so its errors come before anything starts.
    const ResolverSettings settings = rules_settings(b.rules);
    for (Operation op : b.operations()) {
        if (op.method.algorithm != kAutoMethod) {
            validate(op);
            continue;
        }
        op.method = resolve(op, settings).method;
        try {
            validate(op);
        } catch (const Error& e) {
            throw Error(std::string(e.what()) + " ('auto' chose it from " + (b.rules.empty() ? "the builtin decision" : b.rules) + ")");
        }
    }
}

void Backend::check(const Batch& batch) const { validate(batch); }

std::string_view to_string(Timing t) {
    switch (t) {
        case Timing::PerRank: return "per-rank";
        case Timing::Sync: return "sync";
        default: return "root";
    }
}

Timing parse_timing(std::string_view text) {
    if (text == "root") return Timing::Root;
    if (text == "per-rank") return Timing::PerRank;
    if (text == "sync") return Timing::Sync;
    throw Error("timing must be root, per-rank or sync (got '" + std::string(text) + "')");
}

}  // namespace gridcoll
