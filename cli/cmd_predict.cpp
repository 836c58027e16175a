// gridcoll predict: the closed-form prediction of papers 002 (Tables 1-4) and 000 for an
// algorithm, a communicator size and message sizes, under one model and one level's parameters
// (the closed backend, opened through gridcoll/backends). --variant corrected: the corrected
// PLogP broadcast forms (model::predict_corrected).
#include <memory>
#include <string>

#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/algorithms/closed_form_backend.hpp"
#include "gridcoll/runtime/bench_options.hpp"

namespace gridcoll::cli {

Runner add_predict(CLI::App& app) {
    struct Opts {
        backends::Target target;
        backends::SettingValues settings;
        BatchOptions batch;
        std::string format = "csv";
    };
    auto o = std::make_shared<Opts>();
    o->batch.algorithm = "all";
    o->batch.root = 0;  // the forms do not depend on it
    add_platform_option(app, o->target.platform,
                        "platform description to derive parameters and ranks from (or a parameter file)", false);
    app.add_option("-n,--ranks", o->target.ranks, "communicator size (default: the platform's placement)")
        ->check(kPositive);
    launch::add_batch_options(app, o->batch, 1);
    app.add_option("-f,--format", o->format, "csv or table")->capture_default_str()->check(CLI::IsMember({"csv", "table"}));
    add_backend_settings(app, o->settings, {"closed"});
    return [o] {
        if (o->target.platform.empty() && !o->settings.count("params"))
            throw Error("predict: give a platform (-p) or a parameter file (--params)");
        auto opened = backends::open_backend("closed", o->settings, o->target);
        const auto* closed = dynamic_cast<const model::ClosedFormBackend*>(opened.backend.get());
        if (o->batch.algorithm == "all") {  // those with a formula
            Batch b = o->batch.make(opened.ranks, nullptr, false);
            std::string list;
            for (const Method& m : b.methods)
                if (model::has_formula(closed->model(), b.shape.coll, m.algorithm)) list += (list.empty() ? "" : ",") + to_string(m);
            if (list.empty())
                throw Error("the " + std::string(model::to_string(closed->model())) + " model has no formula for any " + o->batch.collective + " algorithm");
            o->batch.algorithm = list;
        }
        opened.topology = nullptr;  // the closed forms know one level: no hierarchical methods
        return run_and_print(opened, o->batch, o->format);
    };
}

}  // namespace gridcoll::cli
