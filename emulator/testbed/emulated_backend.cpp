#include "emulated_backend.hpp"

#include "gridcoll/system/files.hpp"
#include "gridcoll/system/launched_bench.hpp"

namespace gridcoll::emulate {

EmulatedBackend::EmulatedBackend(const Testbed& testbed, MpiOptions mpi, const std::string& bench)
    : testbed_(testbed), mpi_(std::move(mpi)), bench_(sys::sibling_program("gridcoll-bench", bench)) {}

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
    const auto args = sys::bench_arguments(batch, map);
    command.insert(command.end(), args.begin(), args.end());
    // mpirun across the testbed is the launcher; run_launched_bench reads the rows.
    const sys::RemoveOnExit remove_map(map);
    sys::run_launched_bench([&](const sys::LineSink& on_line) { return testbed_.run_lines(mpi_, command, on_line); }, name(),
                            "mpirun across testbed '" + testbed_.name() + "'", sink);
}

}  // namespace gridcoll::emulate
