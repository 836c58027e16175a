// gridcoll predict: the closed-form prediction of papers 002 (Tables 1-4) and 000 for an
// algorithm, a communicator size and message sizes, under one model and one level's parameters.
// --variant corrected: the corrected PLogP broadcast forms (model::predict_corrected).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gridcoll/text.hpp"
#include "commands.hpp"
#include "gridcoll/model/closed_forms.hpp"
#include "gridcoll/registry.hpp"
#include "gridcoll/units.hpp"
#include "gridcoll/model_params.hpp"

namespace gridcoll::cli {

Runner add_predict(CLI::App& app) {
    struct Opts {
        std::string model = "plogp", params, level, collective = "bcast", algorithm = "all", bytes = "8,1K,64K,1M",
                    segment = "0", variant = "paper";
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
    return [o] {
        const model::Model m = model::parse_model(o->model);
        const bool corrected = o->variant == "corrected";
        if (corrected && (m != model::Model::PLogP || o->collective != "bcast"))
            throw Error("--variant corrected exists for the PLogP broadcast only (got model '" + o->model +
                        "', collective '" + o->collective + "')");
        const Collective c = parse_collective(o->collective);
        const model::ParamSet set = sim::load_model_params(o->params);
        const model::LevelParams& level = sim::select_level(set, o->level);
        const auto sizes = parse_byte_list(o->bytes);
        const std::uint64_t seg = parse_bytes(o->segment);
        std::vector<std::string> algs;
        if (o->algorithm == "all") {
            for (const Algorithm* a : algorithms_for(c))
                if (model::has_formula(m, c, a->name)) algs.push_back(a->name);
            if (algs.empty()) throw Error("the " + std::string(model::to_string(m)) + " model has no formula for any " +
                                          std::string(to_string(c)) + " algorithm");
        } else {
            for (const auto& a : split_list(o->algorithm)) {
                find_algorithm(c, a);  // throws listing the valid names
                algs.push_back(a);
            }
        }
        std::printf("model,collective,algorithm,ranks,bytes,segment,fanout,level,time_s\n");
        const std::string label = std::string(model::to_string(m)) + (corrected ? "-corrected" : "");
        int missing = 0;
        for (const auto& a : algs)
            for (auto bytes : sizes) {
                const auto t = corrected ? model::predict_corrected(c, a, o->ranks, static_cast<double>(bytes),
                                                                    static_cast<double>(seg), o->fanout, level)
                                         : model::predict(m, c, a, o->ranks, static_cast<double>(bytes),
                                                          static_cast<double>(seg), o->fanout, level, set.gamma);
                if (!t) {
                    std::fprintf(stderr, "gridcoll: no %s formula for %s %s (or the level lacks %s parameters)\n",
                                 std::string(model::to_string(m)).c_str(), std::string(to_string(c)).c_str(), a.c_str(),
                                 std::string(model::to_string(m)).c_str());
                    ++missing;
                    break;
                }
                std::printf("%s,%s,%s,%d,%llu,%llu,%d,%s,%.9g\n", label.c_str(),
                            std::string(to_string(c)).c_str(), a.c_str(), o->ranks, static_cast<unsigned long long>(bytes),
                            static_cast<unsigned long long>(seg), o->fanout, level.level.c_str(), *t);
            }
        return missing ? 1 : 0;
    };
}

}  // namespace gridcoll::cli
