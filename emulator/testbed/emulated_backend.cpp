#include "gridcoll/emulator/emulated_backend.hpp"

#include "gridcoll/system/files.hpp"
#include "gridcoll/runtime/bench_options.hpp"
#include "gridcoll/runtime/launched_bench.hpp"

namespace gridcoll::emulate {

EmulatedBackend::EmulatedBackend(const Testbed& testbed, MpiOptions mpi, const std::string& bench)
    : testbed_(testbed), mpi_(std::move(mpi)), bench_(sys::sibling_program("gridcoll-bench", bench)) {}

EmulatedBackend::EmulatedBackend(std::unique_ptr<Testbed> owned, MpiOptions mpi, const std::string& bench)
    : owned_(std::move(owned)), testbed_(*owned_), mpi_(std::move(mpi)), bench_(sys::sibling_program("gridcoll-bench", bench)) {}

void EmulatedBackend::check(const Batch& batch) const {
    const int placed = static_cast<int>(platform::place_ranks(testbed_.platform(), mpi_.ranks).size());
    if (batch.shape.ranks != placed)
        throw Error("the batch is for " + std::to_string(batch.shape.ranks) + " ranks, testbed '" + testbed_.name() + "' runs " +
                    std::to_string(placed));
    validate(batch);
}

void EmulatedBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const std::string map = batch.shape.topology ? testbed_.write_rank_map(batch.shape.ranks) : "";
    std::vector<std::string> command = {bench_};
    const auto args = launch::bench_arguments(batch, map);
    command.insert(command.end(), args.begin(), args.end());
    // mpirun across the testbed is the launcher; run_launched_bench reads the rows.
    const sys::RemoveOnExit remove_map(map);
    launch::run_launched_bench([&](const launch::LineSink& on_line) { return testbed_.run_lines(mpi_, command, on_line); }, name(),
                            "mpirun across testbed '" + testbed_.name() + "'", sink);
}

}  // namespace gridcoll::emulate
