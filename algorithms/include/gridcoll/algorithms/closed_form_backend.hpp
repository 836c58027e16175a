// The closed forms as a backend (gridcoll/backend.hpp): each point predicted by the formula of
// the chosen model (paper 002 Tables 1-4, paper 000 for the P-LogP broadcast; see
// closed_forms.hpp) with one level's parameters — the forms know no hierarchy. Rows: backend
// "closed-<model>" ("-corrected" for the corrected PLogP broadcasts), verified "model", one
// repetition.
#pragma once

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

class ClosedFormBackend final : public Backend {
public:
    // `corrected`: the corrected PLogP broadcast forms (predict_corrected); only for PLogP.
    ClosedFormBackend(Model model, LevelParams level, double gamma = 0, bool corrected = false);
    std::string name() const override;
    Model model() const { return model_; }
    // validate(batch) plus: a formula for every method (none for native / auto, hierarchical
    // algorithms or a level without this model's parameters).
    void check(const Batch& batch) const override;
    void run(const Batch& batch, const RowSink& sink) override;

private:
    Model model_;
    LevelParams level_;
    double gamma_;
    bool corrected_;
};

}  // namespace gridcoll::model
