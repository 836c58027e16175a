// The progress thread (setting progress=thread, and progress=auto — the default — where the
// Topology can have sites): while non-blocking collectives are pending it advances them every
// 100 us, so a program that computes without calling MPI still has its collectives move on (the
// OSU overlap benchmarks' default); while none is pending it sleeps. It needs
// MPI_THREAD_MULTIPLE, which the library then asks MPI for at MPI_Init; without it (or with
// progress=calls) operations advance inside the program's own MPI calls only.
#pragma once

namespace gridcoll::pmpi {

// Whether the settings ask for the thread (read before MPI is initialised: MPI_Init needs to
// know which thread level to ask for). Never under SMPI.
bool progress_thread_wanted();
// At the end of MPI_Init (provided = the level MPI gave) and at MPI_Finalize.
void start_progress_thread(int provided);
void stop_progress_thread();
// An operation became pending: wake the thread if it sleeps.
void notify_progress_thread();
// The job is being stopped (stop_job): at exit the thread is let go, not waited for.
void abandon_progress_thread();
// Whether the calling thread is the progress thread.
bool on_progress_thread();

}  // namespace gridcoll::pmpi
