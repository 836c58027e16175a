#include "gridcoll/algorithms/closed_form_backend.hpp"

#include "gridcoll/algorithms/resolver.hpp"

namespace gridcoll::model {

ClosedFormBackend::ClosedFormBackend(Model model, LevelParams level, double gamma, bool corrected)
    : model_(model), level_(std::move(level)), gamma_(gamma), corrected_(corrected) {
    if (corrected_ && model_ != Model::PLogP) throw Error("the corrected closed forms exist for the PLogP model only");
}

std::string ClosedFormBackend::name() const {
    return "closed-" + std::string(to_string(model_)) + (corrected_ ? "-corrected" : "");
}

namespace {

std::optional<double> predict_one(const Operation& op, Model model, const LevelParams& level, double gamma, bool corrected) {
    const MethodParams& p = op.method.params;
    const double m = static_cast<double>(op.bytes), seg = static_cast<double>(p.segment);
    return corrected ? predict_corrected(op.coll, op.method.algorithm, op.ranks, m, seg, p.fanout, level)
                     : predict(model, op.coll, op.method.algorithm, op.ranks, m, seg, p.fanout, level, gamma);
}

}  // namespace

void ClosedFormBackend::check(const Batch& batch) const {
    validate(batch);
    if (corrected_ && batch.shape.coll != Collective::Bcast) throw Error("the corrected closed forms are for the broadcast only");
    if (batch.timing == Timing::PerRank) throw Error("the closed forms predict one call; per-rank timing needs an MPI backend");
    const ResolverSettings settings = rules_settings(batch.rules, false);
    for (Operation op : batch.operations()) {
        const bool chosen = op.method.algorithm == kAutoMethod;
        op.method = resolve(op, settings).method;  // 'auto': the method the decision picks, with its parameters
        if (!predict_one(op, model_, level_, gamma_, corrected_))
            throw Error("no " + std::string(to_string(model_)) + " formula for " + std::string(to_string(op.coll)) + " " +
                        to_string(op.method) + (chosen ? " ('auto' chose it)" : "") + " (or level '" + level_.level +
                        "' lacks " + std::string(to_string(model_)) + " parameters)");
    }
}

void ClosedFormBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const ResolverSettings settings = rules_settings(batch.rules, false);
    for (Operation op : batch.operations()) {
        Resolution how = resolve(op, settings);
        op.method = std::move(how.method);
        const double t = *predict_one(op, model_, level_, gamma_, corrected_);
        op.topology = nullptr;
        sink(ResultRow{name(), std::move(op), 1, TimeSummary{t, t, t}, "model", std::move(how.choice), "model", 0});
    }
}

}  // namespace gridcoll::model
