#include "progress_thread.hpp"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "comm_state.hpp"
#include "nonblocking.hpp"

namespace gridcoll::pmpi {

namespace {

// Between two advances: short next to a WAN latency, long enough to leave the cores to the
// program (these ranks may share one core with others).
constexpr auto kPeriod = std::chrono::microseconds(100);

std::thread worker;
std::atomic<bool> running{false};

const char* setting() {
    const char* v = std::getenv("GRIDCOLL_PROGRESS");
    return v ? v : std::getenv("OMPI_MCA_gridcoll_progress");
}

}  // namespace

bool progress_thread_wanted() {
    const char* v = setting();
    return v && std::strcmp(v, "thread") == 0;
}

void start_progress_thread(int provided) {
    const Library& lib = library();
    if (!lib.active || !lib.settings.progress_thread || running) return;
    if (provided != MPI_THREAD_MULTIPLE) {
        if (lib.world_rank == 0) log("progress=thread needs MPI_THREAD_MULTIPLE, which MPI does not provide: progress in calls only");
        return;
    }
    running = true;
    worker = std::thread([] {
        // Ahead of the program's own threads where the system lets it (best effort: lowering
        // the nice value needs the privilege; ranks of an emulated testbed run as root): with
        // more ranks than cores a progress thread at the program's priority waits its turn
        // behind their computation, and the collective with it.
        setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), -10);
        while (running) {
            engine().progress();
            std::this_thread::sleep_for(kPeriod);
        }
    });
    if (lib.settings.verbose > 0 && lib.world_rank == 0) log("progress thread started");
}

void stop_progress_thread() {
    if (!running) return;
    running = false;
    worker.join();
}

}  // namespace gridcoll::pmpi
