#include "gridcoll/platforms/model_params.hpp"

#include <filesystem>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/model/derive.hpp"
#include "gridcoll/algorithms/model/params_io.hpp"
#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform {

model::ParamSet params_from_topology(const Topology& t, const std::string& origin) {
    model::ParamSet set;
    set.origin = origin;
    for (int l = 0; l < t.levels(); ++l) {
        const auto link = t.link(l);
        if (link && link->bandwidth_Bps > 0) {
            set.levels.push_back(model::level_from_link(t.level_name(l), link->latency_s, link->bandwidth_Bps));
        } else {
            model::LevelParams lp;
            lp.level = t.level_name(l);  // no uniform link at this level: no parameters
            set.levels.push_back(lp);
        }
        // Links that differ between the level's clusters: each pair from its own.
        for (const auto& [a, b, link] : t.pair_links(l))
            set.pairs.push_back({l, a, b, model::level_from_link(t.level_name(l), link.latency_s, link.bandwidth_Bps)});
        // Zones that differ: each cluster from its own.
        for (const auto& [id, link] : t.cluster_links(l))
            set.clusters.push_back({l, id, model::level_from_link(t.level_name(l), link.latency_s, link.bandwidth_Bps)});
    }
    return set;
}

namespace {

// A description's Topology knows each level's link where all its zones agree, and each pair's
// link of an explicit zone (Topology::pair_links).
model::ParamSet params_from_platform(const std::string& path) {
    const platform::Platform p = platform::load_platform(path);
    return params_from_topology(platform::topology(p), "derived from the links of platform " + path);
}

bool has_any(const model::LevelParams& l) { return l.plogp || l.loggp || l.hockney; }

}  // namespace

model::ParamSet load_model_params(const std::string& path) {
    if (!std::filesystem::exists(path)) throw Error("cannot read \"" + path + "\" (no such file; a parameter file or platform description)");
    // A parameter file first; failing that, a platform description.
    try {
        model::ParamSet set = model::load_params(path);
        if (set.levels.empty()) throw Error(path + ": no [[level]] table (a parameter file gives each level's parameters)");
        return set;
    } catch (const Error& as_params) {
        try {
            return params_from_platform(path);
        } catch (const Error& as_platform) {
            throw Error(std::string(as_params.what()) + "\n(and as a platform description: " + as_platform.what() + ")");
        }
    }
}

const model::LevelParams& select_level(const model::ParamSet& p, const std::string& level) {
    std::string names;
    for (std::size_t i = 0; i < p.levels.size(); ++i) {
        names += (names.empty() ? "" : ", ") + std::to_string(i) + "=" + p.levels[i].level;
        if (!level.empty() && (p.levels[i].level == level || std::to_string(i) == level)) {
            if (!has_any(p.levels[i])) throw Error("level '" + level + "' has no parameters");
            return p.levels[i];
        }
    }
    if (!level.empty()) throw Error("no level '" + level + "' (levels: " + names + ")");
    for (const auto& l : p.levels)
        if (has_any(l)) return l;
    throw Error("no level has parameters (levels: " + names + ")");
}

}  // namespace gridcoll::platform
