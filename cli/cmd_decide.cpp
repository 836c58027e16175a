// gridcoll decide: decision functions (paper 002 §6.3). For each (communicator size, message
// size) the best method according to a model (argmin of the closed forms over candidate
// algorithms, segment sizes and fan-outs) and, given a measured sweep (gridcoll-bench CSV), the
// measured best and the performance penalty of each model's choice (Figure 7). Writes a rules
// file (the model's decisions, or the measured ones with --model measured) for
// gridcoll-bench --algorithm auto --rules, and the decision/penalty CSVs that
// validation/decision_maps.py draws.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include "gridcoll/algorithms/text.hpp"
#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/algorithms/model/closed_forms.hpp"
#include "gridcoll/algorithms/model/decision.hpp"
#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/platforms/model_params.hpp"
#include "gridcoll/system/files.hpp"

namespace gridcoll::cli {

namespace {

// Every file or none: a file that cannot be written removes those this call made before it
// (a file that was there before stays, replaced whole: sys::write_output is atomic).
void write_all(const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<std::string> made;
    for (const auto& [path, text] : files) {
        const bool fresh = !std::filesystem::exists(path);
        try {
            sys::write_output(path, text);
        } catch (const Error&) {
            for (const std::string& m : made) std::remove(m.c_str());
            throw;
        }
        if (fresh) made.push_back(path);
    }
}

// "2-32" (every size in the range), "4,8,16" or "16".
std::vector<int> parse_ranks(const std::string& text) {
    std::vector<int> out;
    const auto dash = text.find('-');
    try {
        if (dash != std::string::npos) {
            const int lo = std::stoi(text.substr(0, dash)), hi = std::stoi(text.substr(dash + 1));
            if (lo < 1 || hi < lo) throw Error("");
            for (int p = lo; p <= hi; ++p) out.push_back(p);
            return out;
        }
        for (const auto& item : split_list(text)) {
            const int p = std::stoi(item);
            if (p < 1) throw Error("");
            out.push_back(p);
        }
    } catch (const std::exception&) {
        throw Error("--ranks '" + text + "' is not a range (2-32) or a list (4,8,16) of communicator sizes");
    }
    return out;
}

}  // namespace

Runner add_decide(CLI::App& app) {
    struct Opts {
        std::string model = "plogp", params, level, collective = "bcast", ranks = "2-32",
                    bytes = "1,16,256,1K,4K,16K,64K,256K,1M,4M", segments = "0,1K,8K", measured, rules, maps;
        std::vector<int> fanouts{2};
    };
    auto o = std::make_shared<Opts>();
    app.add_option("-m,--model", o->model, "hockney, loggp, plogp, all, or measured (rules from the sweep)")->capture_default_str();
    add_platform_option(app, o->params, "platform description whose links give the models' parameters", false)
        ->excludes(app.add_option("--params", o->params, "parameter file (gridcoll params measure) for the models"));
    app.add_option("-l,--level", o->level, "which level's parameters");
    app.add_option("-c,--collective", o->collective, "collective")->capture_default_str();
    app.add_option("-n,--ranks", o->ranks, "communicator sizes: 2-32 or 4,8,16")->capture_default_str();
    app.add_option("-b,--bytes", o->bytes, "message sizes")->capture_default_str();
    app.add_option("-s,--segments", o->segments, "candidate segment sizes")->capture_default_str();
    app.add_option("-k,--fanouts", o->fanouts, "candidate fan-outs")->capture_default_str();
    app.add_option("--measured", o->measured, "gridcoll-bench / simulate CSV of a measured sweep (penalties)");
    app.add_option("-o,--rules", o->rules, "rules file to write (default: standard output)");
    app.add_option("--maps", o->maps, "prefix for <prefix>-decision.csv and <prefix>-penalty.csv");
    return [o] {
        const Collective coll = parse_collective(o->collective);
        const std::vector<int> ranks = parse_ranks(o->ranks);
        const std::vector<std::uint64_t> sizes = parse_byte_list(o->bytes);
        std::vector<model::DecisionTable> tables;
        std::vector<ResultRow> rows;
        if (!o->measured.empty()) {
            rows = load_result_csv(o->measured);
            tables.push_back(model::decide_by_measurement(rows, coll));
            if (tables.back().entries.empty())
                throw Error(o->measured + ": no " + o->collective + " row of a known method that did not fail (" +
                            std::to_string(rows.size()) + " rows in all): nothing to decide from");
        } else if (o->model == "measured") {
            throw Error("--model measured needs --measured CSV");
        }
        if (o->model != "measured") {
            if (o->params.empty()) throw Error("model decisions need a platform (-p) or a parameter file (--params)");
            const model::ParamSet set = platform::load_model_params(o->params);
            const model::LevelParams& level = platform::select_level(set, o->level);
            model::CandidateSpec spec;
            spec.segments = parse_byte_list(o->segments);
            spec.fanouts = o->fanouts;
            const auto candidates = model::make_candidates(coll, spec);
            const std::vector<std::string> names =
                o->model == "all" ? std::vector<std::string>{"hockney", "loggp", "plogp"} : std::vector<std::string>{o->model};
            for (const auto& n : names) {
                tables.push_back(model::decide_by_model(model::parse_model(n), coll, sizes, ranks, level, set.gamma, candidates));
                for (const auto& u : tables.back().unmodelled)
                    std::fprintf(stderr, "gridcoll: %s has no %s formula: not a candidate\n", u.c_str(), n.c_str());
            }
        }
        // The rules: the measured decisions with --model measured, else the (last) model's.
        // Measured rules switch where the two winners' curves cross between the sampled sizes.
        const model::DecisionTable chosen =
            o->model == "measured" ? model::with_crossovers(tables.front(), rows) : tables.back();
        const std::string comment = "gridcoll decide: " + chosen.source + ", " + o->collective;
        std::ostringstream rules_text, decisions, penalties;
        model::write_rules(rules_text, model::rules_from_decision(chosen), comment);
        std::vector<std::pair<std::string, std::string>> files;  // (path, text), written all or none
        if (!o->maps.empty()) {
            model::write_decision_csv(decisions, tables);
            files.emplace_back(o->maps + "-decision.csv", decisions.str());
            if (!rows.empty()) {
                std::vector<model::PenaltyTable> p;
                for (std::size_t i = o->measured.empty() ? 0 : 1; i < tables.size(); ++i) p.push_back(model::penalty(tables[i], rows));
                model::write_penalty_csv(penalties, p);
                files.emplace_back(o->maps + "-penalty.csv", penalties.str());
            }
        }
        if (!o->rules.empty()) files.emplace_back(o->rules, rules_text.str());
        write_all(files);
        if (o->rules.empty()) std::fputs(rules_text.str().c_str(), stdout);
        if (!o->maps.empty())
            std::fprintf(stderr, "gridcoll: wrote %s-decision.csv%s; draw them with /usr/bin/python3 validation/decision_maps.py\n",
                         o->maps.c_str(), rows.empty() ? "" : (" and " + o->maps + "-penalty.csv").c_str());
        return 0;
    };
}

}  // namespace gridcoll::cli
