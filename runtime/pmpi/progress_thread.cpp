#include "progress_thread.hpp"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "comm_state.hpp"
#include "nonblocking.hpp"
#include "settings.hpp"

namespace gridcoll::pmpi {

namespace {

// Between two advances while operations are pending: short next to a WAN latency, long enough
// to leave the cores to the program (these ranks may share one core with others).
constexpr auto kPeriod = std::chrono::microseconds(100);

std::thread worker;
std::atomic<bool> running{false};
std::atomic<bool> abandoned{false};  // the job is being stopped: never wait for the thread
std::mutex idle_lock;
std::condition_variable work_arrived;

// Sleeps while nothing is pending (no CPU taken from a program that has no non-blocking
// collective in flight), then advances every kPeriod until the engine is idle again.
thread_local bool t_serving = false;

void serve() {
    t_serving = true;
    // Ahead of the program's own threads where the system lets it (best effort: lowering
    // the nice value needs the privilege; ranks of an emulated testbed run as root): with
    // more ranks than cores a progress thread at the program's priority waits its turn
    // behind their computation, and the collective with it.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), -10);
    while (running) {
        {
            std::unique_lock<std::mutex> hold(idle_lock);
            work_arrived.wait(hold, [] { return !running || !engine().idle(); });
        }
        if (!running) break;
        engine().progress();
        std::this_thread::sleep_for(kPeriod);
    }
}

// A program that exits without MPI_Finalize (as many do on their error paths) would otherwise
// end in std::terminate, the thread still joinable when its std::thread is destroyed, instead
// of with its own exit status. Where the exit comes from the thread itself, or from a job being
// stopped (MPI_Abort, which the thread may be inside MPI beside), it is let go.
void stop_at_exit() {
    if (!running) return;
    if (!t_serving && !abandoned) return stop_progress_thread();
    running = false;
    worker.detach();
}

}  // namespace

bool on_progress_thread() { return t_serving; }

void abandon_progress_thread() { abandoned = true; }

bool progress_thread_wanted() {
#ifdef GRIDCOLL_SMPI
    return false;  // simulated processes have no threads of their own that may call MPI
#else
    try {
        return read_settings([](const char* name) { return std::getenv(name); }).wants_progress_thread();
    } catch (const std::exception&) {
        return false;  // the settings are reported (and the job stopped) once MPI is up
    }
#endif
}

void start_progress_thread(int provided) {
    const Library& lib = library();
    if (!lib.active || running || !lib.settings.wants_progress_thread()) return;
    if (provided != MPI_THREAD_MULTIPLE) {
        if (lib.world_rank == 0 && (lib.settings.progress == Progress::Thread || lib.settings.verbose > 0))
            log("a progress thread needs MPI_THREAD_MULTIPLE, which MPI does not provide: progress in calls only");
        return;
    }
    running = true;
    static const bool at_exit = std::atexit(stop_at_exit) == 0;
    (void)at_exit;
    worker = std::thread(serve);
    if (lib.settings.verbose > 0 && lib.world_rank == 0)
        log(std::string("progress thread started (progress=") + std::string(to_string(lib.settings.progress)) + ")");
}

void notify_progress_thread() {
    if (!running) return;
    std::lock_guard<std::mutex> hold(idle_lock);
    work_arrived.notify_one();
}

void stop_progress_thread() {
    if (!running) return;
    {
        std::lock_guard<std::mutex> hold(idle_lock);
        running = false;
    }
    work_arrived.notify_one();
    worker.join();
}

}  // namespace gridcoll::pmpi
