// Persistent collectives (MPI 4's MPI_Bcast_init ... MPI_Start; Open MPI 4.1's MPIX_ forms of
// them) as the library's non-blocking collectives. The init call makes the MPI library's own
// persistent collective and gives its handle to the program, keeping the collective's arguments
// under it: so the handle is unique, valid in every MPI call, freed like any other, and in a call
// the library does not intercept it is MPI's own collective (runtime/pmpi/README.md says why not
// a handle of the library's own). Each MPI_Start / MPI_Startall on it starts the non-blocking collective
// afresh (the method chosen then, as for an MPI_I... call) and keeps its request as the handle's
// active one.
//
// MPI 4 matches persistent collectives in the order of their init calls, and ranks may start
// them in different orders, and between their other collectives in different orders; so nothing
// a start does may depend on that order. The init call makes the communicator's duplicate and
// fixes a block of tags (CommState::persistent_tag); a start neither agrees on nor caches its
// schedule (PersistentStart: built at the first start, kept with the handle); a start whose
// method is the MPI library's starts MPI's persistent request itself (native_nonblocking).
//
// The calls that complete or ask about requests (MPI_Wait, MPI_Test and their -all, -any and
// -some forms, MPI_Request_get_status) see the active request in the handle's place, or
// MPI_REQUEST_NULL while it is inactive, which MPI treats as it treats an inactive persistent
// request (an empty status, no index), and the program keeps its handle afterwards;
// MPI_Request_free waits for an active collective and frees the handle. The datatypes, the
// operation and the communicator are held from the init call to the free (handles.hpp).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace gridcoll::pmpi::persistent {

// Starts the collective once: the non-blocking call, its request given.
using Starter = std::function<int(MPI_Request*)>;

// The init call, after the MPI library's own init call gave `native` (return code `rc`): the
// program's handle for a collective the library runs; before MPI_Init, or when MPI failed,
// MPI's own.
int make(int rc, MPI_Request native, const char* name, MPI_Comm comm, std::vector<MPI_Datatype> types, MPI_Op op,
         Starter start, MPI_Request* request);

// In a collective's path, where it would start the MPI library's non-blocking form (`call`,
// given the program's request): during a persistent collective's start, MPI's own persistent
// request is started instead and watched by the progress engine; during a large-count call,
// MPI's own _c form (large_count.hpp); else `call`.
int native_nonblocking(MPI_Request* request, const std::function<int(MPI_Request*)>& call);

// Not the library's handle: false, and nothing done. Else the call's return code in `rc`.
bool start(MPI_Request* request, int* rc);
bool release(MPI_Request* request, int* rc);  // MPI_Request_free

// MPI_Finalize (MPI_COMM_NULL) or the deletion of `comm` (MPI_Comm_disconnect): the library lets
// go of the handles the program kept (MPI does not ask for inactive ones to be freed); they are
// MPI's own persistent collectives from then on.
void forget(MPI_Comm comm);

// Whether any of the library's handles exists (the calls below cost nothing when none does).
bool any();
// `handle` is the library's: true, and its active request (MPI_REQUEST_NULL while inactive) in
// `active`. set_active records what a completion call left in the handle's place.
bool active_of(MPI_Request handle, MPI_Request* active);
void set_active(MPI_Request handle, MPI_Request active);

// While alive, the library's handles among `reqs` stand for their active requests (or
// MPI_REQUEST_NULL); afterwards the handles are back, and the ones whose request completed are
// inactive. Free when there is no persistent collective at all.
class Swap {
public:
    Swap(int n, MPI_Request* reqs);
    ~Swap();
    Swap(const Swap&) = delete;
    Swap& operator=(const Swap&) = delete;

private:
    struct Slot {
        int index;
        MPI_Request handle;
    };
    MPI_Request* reqs_;
    std::vector<Slot> slots_;
};

}  // namespace gridcoll::pmpi::persistent
