// gridcoll algorithms [--collective C]: the registry, as the bench and the tests see it.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "gridcoll/algorithms/registry.hpp"

namespace gridcoll::cli {

Runner add_algorithms(CLI::App& app) {
    auto coll = std::make_shared<std::string>();
    app.add_option("-c,--collective", *coll, "only this collective");
    return [coll] {
        for (Collective c : all_collectives()) {
            if (!coll->empty() && parse_collective(*coll) != c) continue;
            std::printf("%s\n", to_string(c).data());
            for (const Algorithm* a : algorithms_for(c)) {
                std::string flags;
                if (a->segmented) flags += " segment";
                if (a->uses_fanout) flags += " fanout";
                if (a->needs_topology) flags += " topology";
                if (a->uses_cluster_level) flags += " level";
                if (a->uses_wan_window) flags += " win";
                if (a->uses_shares) flags += " shares";
                if (a->uses_trees) flags += " trees";
                if (is_reduction(c) && !a->keeps_order) flags += " commutative-only";
                std::printf("  %-20s %s%s%s%s\n", a->name.c_str(), a->description.c_str(), flags.empty() ? "" : " [",
                            flags.empty() ? "" : flags.c_str() + 1, flags.empty() ? "" : "]");
            }
        }
        return 0;
    };
}

}  // namespace gridcoll::cli
