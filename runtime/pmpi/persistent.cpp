// The library's persistent collective handles (persistent.hpp).
#include "persistent.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "comm_state.hpp"
#include "handles.hpp"
#include "nonblocking.hpp"

namespace gridcoll::pmpi::persistent {

namespace {

struct Entry {
    std::string name;  // MPI_Bcast_init, ...: for the log and errors
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<MPI_Datatype> types;
    MPI_Op op = MPI_OP_NULL;
    Starter start;
    MPI_Request active = MPI_REQUEST_NULL;  // the running collective's request; null: inactive
    MPI_Request native = MPI_REQUEST_NULL;  // the MPI library's own persistent request: the handle
    int tag = -1;                           // the tags its schedules use; -1: MPI takes every call
};

thread_local Entry* t_starting = nullptr;  // the entry whose start this thread runs

// Shared by the program's threads; an entry is used by the thread that holds its handle, and
// its node stays where it is until its handle is freed.
struct Table {
    std::mutex lock;
    std::unordered_map<MPI_Request, Entry> entries;
    std::atomic<std::size_t> count{0};
};

Table& table() {
    static Table t;
    return t;
}

Entry* find(MPI_Request handle) {
    Table& t = table();
    if (t.count == 0 || handle == MPI_REQUEST_NULL) return nullptr;
    std::lock_guard<std::mutex> hold(t.lock);
    auto it = t.entries.find(handle);
    return it == t.entries.end() ? nullptr : &it->second;
}

}  // namespace

int make(int rc, MPI_Request native, const char* name, MPI_Comm comm, std::vector<MPI_Datatype> types, MPI_Op op,
         Starter start, MPI_Request* request) {
    if (rc != MPI_SUCCESS || !library().active) {
        *request = native;
        return rc;
    }
    *request = native;
    CommState* cs = state_for(comm);
    for (MPI_Datatype t : types) hold_type(t);
    hold_op(op);
    hold_comm(comm);
    Table& t = table();
    std::lock_guard<std::mutex> hold(t.lock);
    t.entries[*request] = Entry{name, comm, std::move(types), op, std::move(start), MPI_REQUEST_NULL, native,
                                cs ? cs->reserve_tag() : -1};
    ++t.count;
    return MPI_SUCCESS;
}

int native_nonblocking(MPI_Request* request, const std::function<int(MPI_Request*)>& call) {
    Entry* e = std::exchange(t_starting, nullptr);
    if (!e) return call(request);
    const int rc = PMPI_Start(&e->native);
    if (rc == MPI_SUCCESS) engine().watch(e->native, request);
    return rc;
}

bool start(MPI_Request* request, int* rc) {
    Entry* e = find(*request);
    if (!e) return false;
    if (e->active != MPI_REQUEST_NULL) {
        log(e->name + ": MPI_Start on a persistent collective that is still active (erroneous in MPI)");
        *rc = MPI_ERR_REQUEST;
        return true;
    }
    *rc = run_nonblocking(e->name.c_str(), e->comm, e->types, e->op, [&] {
        const FixedTag tag(e->tag);
        t_starting = e;
        const int started = e->start(&e->active);
        t_starting = nullptr;
        return started;
    });
    return true;
}

bool release(MPI_Request* request, int* rc) {
    Entry* e = find(*request);
    if (!e) return false;
    *rc = MPI_SUCCESS;
    // Freeing an active one is erroneous in MPI 4; the collective is finished first, as every
    // rank takes part in it.
    if (e->active != MPI_REQUEST_NULL) *rc = MPI_Wait(&e->active, MPI_STATUS_IGNORE);
    if (CommState* cs = e->tag >= 0 ? state_for(e->comm) : nullptr) cs->release_tag(e->tag);
    for (MPI_Datatype t : e->types) release_type(t);
    release_op(e->op);
    release_comm(e->comm);
    const MPI_Request handle = *request;
    const int freed = PMPI_Request_free(request);  // MPI's own, the handle
    if (*rc == MPI_SUCCESS) *rc = freed;
    Table& t = table();
    std::lock_guard<std::mutex> hold(t.lock);
    t.entries.erase(handle);
    --t.count;
    return true;
}

bool any() { return table().count > 0; }

bool active_of(MPI_Request handle, MPI_Request* active) {
    const Entry* e = find(handle);
    if (e) *active = e->active;
    return e != nullptr;
}

void set_active(MPI_Request handle, MPI_Request active) {
    if (Entry* e = find(handle)) e->active = active;
}

Swap::Swap(int n, MPI_Request* reqs) : reqs_(reqs) {
    if (!any() || reqs == nullptr) return;
    for (int i = 0; i < n; ++i) {
        MPI_Request active = MPI_REQUEST_NULL;
        if (!active_of(reqs[i], &active)) continue;
        slots_.push_back({i, reqs[i]});
        reqs[i] = active;
    }
}

Swap::~Swap() {
    for (const Slot& s : slots_) {
        set_active(s.handle, reqs_[s.index]);
        reqs_[s.index] = s.handle;
    }
}

}  // namespace gridcoll::pmpi::persistent
