// gridcoll optimize: paper 000's P-LogP optimiser for a segmented tree broadcast — single layer
// (segment size m and degree d) or two layers (m, WAN degree d_w, LAN degree d_l) — with the
// chosen method, the predicted time and how long the search took.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/plogp_optimizer.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/platforms/model_params.hpp"

namespace gridcoll::cli {

namespace {

// Runs `search` repeatedly for about 20 ms and returns (result, microseconds per call).
template <class F>
auto timed(F search) {
    using clock = std::chrono::steady_clock;
    auto result = search();
    int calls = 0;
    const auto t0 = clock::now();
    auto t1 = t0;
    do {
        result = search();
        ++calls;
        t1 = clock::now();
    } while (t1 - t0 < std::chrono::milliseconds(20) && calls < 100000);
    return std::make_pair(result, std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
}

const model::PLogPParams& plogp_of(const model::LevelParams& l) {
    if (!l.plogp) throw Error("level '" + l.level + "' has no PLogP parameters");
    return *l.plogp;
}

}  // namespace

Runner add_optimize(CLI::App& app) {
    struct Opts {
        std::string params, level, wan_level = "0", lan_level = "1", bytes = "4M", search = "both", lan_degrees = "all";
        int ranks = 0, clusters = 0, cluster_size = 0;
    };
    auto o = std::make_shared<Opts>();
    add_platform_option(app, o->params, "platform description whose links give the parameters", false)
        ->excludes(app.add_option("--params", o->params, "parameter file (gridcoll params measure)"));
    app.add_option("-b,--bytes", o->bytes, "message sizes M")->capture_default_str();
    app.add_option("-n,--ranks", o->ranks, "single layer: number of processes P")->check(kPositive);
    app.add_option("-l,--level", o->level, "single layer: which level's parameters");
    app.add_option("--clusters", o->clusters, "two layers: number of clusters")->check(kPositive);
    app.add_option("--cluster-size", o->cluster_size, "two layers: processes per cluster")->check(kPositive);
    app.add_option("--wan-level", o->wan_level, "two layers: WAN level")->capture_default_str();
    app.add_option("--lan-level", o->lan_level, "two layers: LAN level")->capture_default_str();
    app.add_option("--search", o->search, "heuristic, exhaustive or both")
        ->capture_default_str()
        ->check(CLI::IsMember({"heuristic", "exhaustive", "both"}));
    app.add_option("--lan-degrees", o->lan_degrees,
                   "two-layer heuristic: 'paper' bounds d_l by gamma'/s_l (paper 000); 'all' tries every d_l where h_l drops")
        ->capture_default_str()
        ->check(CLI::IsMember({"paper", "all"}));
    return [o] {
        if (o->params.empty()) throw Error("optimize: give a platform (-p) or a parameter file (--params)");
        const bool two = o->clusters > 0;
        if (two == (o->ranks > 0)) throw Error("give either --ranks (single layer) or --clusters and --cluster-size (two layers)");
        if (two && o->cluster_size <= 0) throw Error("--clusters needs --cluster-size");
        constexpr long long kMostProcesses = 1LL << 24;  // as many ranks as a platform description may place
        if (two && static_cast<long long>(o->clusters) * o->cluster_size > kMostProcesses)
            throw Error("--clusters " + std::to_string(o->clusters) + " x --cluster-size " + std::to_string(o->cluster_size) +
                        " is more than " + std::to_string(kMostProcesses) + " processes");
        const model::ParamSet set = platform::load_model_params(o->params);
        // The levels first, so that a bad level leaves no CSV header behind.
        const auto* wan = two ? &plogp_of(platform::select_level(set, o->wan_level)) : nullptr;
        const auto* lan = two ? &plogp_of(platform::select_level(set, o->lan_level)) : nullptr;
        const auto* one = two ? nullptr : &plogp_of(platform::select_level(set, o->level));
        const auto sizes = parse_byte_list(o->bytes);
        model::SearchLimits limits;
        limits.bound_lan_degree = o->lan_degrees == "paper";
        std::printf("layers,bytes,processes,search,segment,segments,degree_wan,degree_lan,time_s,search_us,evaluations\n");
        for (auto M : sizes) {
            for (const char* s : {"heuristic", "exhaustive"}) {
                if (o->search != "both" && o->search != s) continue;
                const auto how = std::string(s) == "heuristic" ? model::Search::Heuristic : model::Search::Exhaustive;
                if (two) {
                    const auto [c, us] = timed([&] {
                        return model::optimize_two_layer(M, o->clusters, o->cluster_size, *wan, *lan, how, limits);
                    });
                    std::printf("2,%llu,%d,%s,%llu,%llu,%d,%d,%.9g,%.3f,%llu\n", static_cast<unsigned long long>(M),
                                o->clusters * o->cluster_size, s, static_cast<unsigned long long>(c.segment),
                                static_cast<unsigned long long>(c.segments), c.wan_degree, c.lan_degree, c.time, us,
                                static_cast<unsigned long long>(c.evaluations));
                } else {
                    const auto [c, us] = timed([&] { return model::optimize_single_layer(M, o->ranks, *one, how, limits); });
                    std::printf("1,%llu,%d,%s,%llu,%llu,%d,0,%.9g,%.3f,%llu\n", static_cast<unsigned long long>(M), o->ranks, s,
                                static_cast<unsigned long long>(c.segment), static_cast<unsigned long long>(c.segments),
                                c.degree, c.time, us, static_cast<unsigned long long>(c.evaluations));
                }
            }
        }
        return 0;
    };
}

}  // namespace gridcoll::cli
