// gridcoll predict: the closed-form prediction of papers 002 (Tables 1-4) and 000 for an
// algorithm, a communicator size and message sizes, under one model and one level's parameters.
// --variant corrected: the corrected PLogP broadcast forms (model::predict_corrected).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gridcoll/text.hpp"
#include "commands.hpp"
#include "csv_table.hpp"
#include "gridcoll/model/closed_form_backend.hpp"
#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"
#include "gridcoll/model_params.hpp"

namespace gridcoll::cli {

Runner add_predict(CLI::App& app) {
    struct Opts {
        std::string model = "plogp", params, level, collective = "bcast", algorithm = "all", bytes = "8,1K,64K,1M",
                    segment = "0", variant = "paper", type = "int32", format = "csv";
        int ranks = 0, fanout = 2;
    };
    auto o = std::make_shared<Opts>();
    app.add_option("-m,--model", o->model, "hockney, loggp or plogp")->capture_default_str();
    app.add_option("-p,--params", o->params, "parameter file (.toml), or a platform description to derive them from")->required();
    app.add_option("-l,--level", o->level, "which level's parameters (name or index; default: the widest with parameters)");
    app.add_option("-c,--collective", o->collective, "collective")->capture_default_str();
    app.add_option("-a,--algorithm", o->algorithm, "algorithm(s), comma-separated, or 'all' (those with a formula)")
        ->capture_default_str();
    app.add_option("-n,--ranks", o->ranks, "communicator size")->required()->check(CLI::PositiveNumber);
    app.add_option("-b,--bytes", o->bytes, "message sizes")->capture_default_str();
    app.add_option("-s,--segment", o->segment, "segment size (0 = none)")->capture_default_str();
    app.add_option("-k,--fanout", o->fanout, "fan-out")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--variant", o->variant,
                   "paper (as published) or corrected (PLogP broadcasts: the tree's own shape, splitted-binary's final exchange)")
        ->capture_default_str()
        ->check(CLI::IsMember({"paper", "corrected"}));
    app.add_option("--type", o->type, "element type of reductions (sizes must be whole elements)")->capture_default_str();
    app.add_option("-f,--format", o->format, "csv or table")->capture_default_str()->check(CLI::IsMember({"csv", "table"}));
    return [o] {
        const model::Model m = model::parse_model(o->model);
        const model::ParamSet set = sim::load_model_params(o->params);
        model::ClosedFormBackend backend(m, sim::select_level(set, o->level), set.gamma, o->variant == "corrected");
        Batch b;
        b.shape.coll = parse_collective(o->collective);
        b.shape.ranks = o->ranks;
        b.shape.type = parse_elem_type(o->type);
        MethodParams defaults;
        defaults.segment = parse_bytes(o->segment);
        defaults.fanout = o->fanout;
        b.methods = parse_method_list(b.shape.coll, o->algorithm, defaults, MethodListOptions{false, false});
        if (o->algorithm == "all") {  // those with a formula
            std::erase_if(b.methods, [&](const Method& x) { return !model::has_formula(m, b.shape.coll, x.algorithm); });
            if (b.methods.empty())
                throw Error("the " + std::string(model::to_string(m)) + " model has no formula for any " +
                            std::string(to_string(b.shape.coll)) + " algorithm");
        }
        b.sizes = parse_byte_list(o->bytes);
        b.reps = 1;
        backend.check(b);
        RowPrinter print(o->format == "table");
        backend.run(b, [&](const ResultRow& row) { print(row); });
        return print.finish();
    };
}

}  // namespace gridcoll::cli
