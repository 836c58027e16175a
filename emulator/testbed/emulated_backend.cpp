#include "gridcoll/emulator/emulated_backend.hpp"

#include <atomic>
#include <cstdio>
#include <thread>

#include "gridcoll/emulator/testbed_faults.hpp"
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

namespace {

// The backend's fault schedule, carried out beside a batch from its start; stopped (every link
// restored) when the batch ends, however it ends.
class FaultsDuringBatch {
public:
    FaultsDuringBatch(const TestbedPlan& plan, const std::vector<ScheduledFault>& faults) {
        if (faults.empty()) return;
        thread_ = std::thread([this, &plan, faults] {
            try {
                run_fault_schedule(plan, faults, [](const std::string& s) { std::fprintf(stderr, "gridcoll emulate: fault %s\n", s.c_str()); },
                                   &stop_);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "gridcoll emulate: fault schedule stopped: %s\n", e.what());
            }
        });
    }
    ~FaultsDuringBatch() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }
    FaultsDuringBatch(const FaultsDuringBatch&) = delete;
    FaultsDuringBatch& operator=(const FaultsDuringBatch&) = delete;

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace

void EmulatedBackend::run(const Batch& batch, const RowSink& sink) {
    check(batch);
    const std::vector<ScheduledFault> faults = mpi_.fault_schedule.empty() ? std::vector<ScheduledFault>{}
                                                                           : read_fault_schedule(mpi_.fault_schedule);
    check_fault_schedule(testbed_.plan(), faults);
    const FaultsDuringBatch during(testbed_.plan(), faults);
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
