#include "gridcoll/runtime/openmpi_backend.hpp"

#include <unistd.h>

#include "gridcoll/runtime/bench_options.hpp"
#include "gridcoll/runtime/launched_bench.hpp"
#include "gridcoll/system/files.hpp"
#include "gridcoll/system/process.hpp"

namespace gridcoll::launch {

OpenMpiBackend::OpenMpiBackend(int ranks, std::shared_ptr<const Topology> topology, const std::string& bench,
                               std::vector<std::string> mca)
    : ranks_(ranks), topology_(std::move(topology)), bench_(sys::sibling_program("gridcoll-bench", bench)), mca_(std::move(mca)) {}

std::vector<std::string> mca_arguments(const std::vector<std::pair<std::string, std::string>>& defaults,
                                       const std::vector<std::string>& given) {
    auto set_by_given = [&](const std::string& key) {
        for (std::size_t i = 0; i + 2 < given.size(); i += 3)
            if (given[i + 1] == key) return true;
        return false;
    };
    std::vector<std::string> argv;
    for (const auto& [key, value] : defaults)
        if (!set_by_given(key)) argv.insert(argv.end(), {"--mca", key, value});
    argv.insert(argv.end(), given.begin(), given.end());
    return argv;
}

void OpenMpiBackend::check(const Batch& batch) const {
    if (batch.shape.ranks != ranks_)
        throw Error("the batch is for " + std::to_string(batch.shape.ranks) + " ranks, the target runs " + std::to_string(ranks_));
    validate(batch);
}

std::vector<std::string> OpenMpiBackend::command(const Batch& batch, const std::string& rank_map) const {
    // By name, not by path: Open MPI takes an absolute mpirun path for an installation prefix.
    std::vector<std::string> argv = {"mpirun", "--oversubscribe", "-np", std::to_string(ranks_)};
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");  // the user asked for it by running as root
    const auto mca = mca_arguments({kUnaggregatedHelp}, mca_);
    argv.insert(argv.end(), mca.begin(), mca.end());
    argv.push_back(bench_);
    const auto args = bench_arguments(batch, rank_map);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

void OpenMpiBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const sys::ScratchDir dir("gridcoll-openmpi-");
    std::string map;
    if (batch.shape.topology) {
        map = dir.path() + "/ranks";
        sys::write_output(map, batch.shape.topology->to_text());
    }
    const auto argv = command(batch, map);
    run_launched_bench([&](const LineSink& on_line) { return sys::run_lines(argv, on_line); }, name(), "mpirun", sink);
}

}  // namespace gridcoll::launch
