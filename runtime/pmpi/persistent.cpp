// The library's persistent collective handles (persistent.hpp).
#include "persistent.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "comm_state.hpp"
#include "handles.hpp"
#include "large_count.hpp"
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
    int tag = -1;  // the tags its schedules use; -1: every start is MPI's own persistent collective
    PinnedSchedule pinned;  // its schedule, built (or found not to build) at the first start
};

thread_local Entry* t_starting = nullptr;  // the entry whose start this thread runs

// While alive, this thread runs `e`'s start.
class Starting {
public:
    explicit Starting(Entry* e) : context_(e->tag, &e->pinned) { t_starting = e; }
    ~Starting() { t_starting = nullptr; }
    Starting(const Starting&) = delete;
    Starting& operator=(const Starting&) = delete;

private:
    PersistentStart context_;
};

// The holds an entry took at its init call.
void let_go(const Entry& e) {
    for (MPI_Datatype type : e.types) release_type(type);
    release_op(e.op);
    release_comm(e.comm);
}

// A start whose method is MPI's own: its persistent collective, watched by the engine.
int start_native(Entry& e, MPI_Request* request) {
    const int rc = PMPI_Start(&e.native);
    if (rc == MPI_SUCCESS) engine().watch(e.native, request);
    return rc;
}

// Shared by the program's threads; an entry is used by the thread that holds its handle, and
// its node stays where it is until its handle is freed.
struct Table {
    std::mutex lock;
    std::unordered_map<MPI_Request, Entry> entries;
    std::atomic<std::size_t> count{0};
};

Table& table() {
    static auto* t = new Table;  // never destroyed: the progress thread may use it until it stops at exit
    return *t;
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
    // The init calls are ordered on every rank, and may be collective: the duplicate is made
    // here, never at a start (each rank then has it, or none has).
    CommState* cs = state_for(comm);
    const int tag = cs && cs->ensure_duplicate() ? cs->persistent_tag() : -1;
    for (MPI_Datatype t : types) hold_type(t);
    hold_op(op);
    hold_comm(comm);
    Table& t = table();
    std::unique_lock<std::mutex> hold(t.lock);
    Entry made{name, comm, std::move(types), op, std::move(start), MPI_REQUEST_NULL, native, tag, std::nullopt};
    auto [it, fresh] = t.entries.try_emplace(native);
    if (fresh) ++t.count;
    else log(std::string(name) + ": the MPI library gave again a handle freed behind the library's back");
    std::swap(it->second, made);
    hold.unlock();
    if (!fresh) let_go(made);  // the stale one
    return MPI_SUCCESS;
}

int native_nonblocking(MPI_Request* request, const std::function<int(MPI_Request*)>& call) {
    Entry* e = std::exchange(t_starting, nullptr);
    if (e) return start_native(*e, request);
    const auto* own = large_count::native_call();  // a large-count call: MPI's own _c form
    if (!own) return call(request);
    static std::once_flag said;
    std::call_once(said, [] {
        if (library().settings.verbose > 0) log("a large-count non-blocking call whose method is MPI's own runs as MPI's _c call");
    });
    return (*own)(request);
}

bool start(MPI_Request* request, int* rc) {
    Entry* e = find(*request);
    if (!e) return false;
    if (e->active != MPI_REQUEST_NULL) {
        log(e->name + ": MPI_Start on a persistent collective that is still active (erroneous in MPI)");
        PMPI_Comm_call_errhandler(e->comm, MPI_ERR_REQUEST);  // the program's handler, as MPI's would
        *rc = MPI_ERR_REQUEST;
        return true;
    }
    *rc = run_nonblocking(e->name.c_str(), e->comm, e->types, e->op, [&] {
        if (e->tag < 0) return start_native(*e, &e->active);
        const Starting starting(e);
        return e->start(&e->active);
    });
    return true;
}

// The entry leaves the table before MPI's handle is freed: MPI may give the same handle to
// another thread's next request at once.
bool release(MPI_Request* request, int* rc) {
    Table& t = table();
    std::unique_lock<std::mutex> hold(t.lock);
    auto it = t.count == 0 ? t.entries.end() : t.entries.find(*request);
    if (it == t.entries.end()) return false;
    Entry e = std::move(it->second);
    t.entries.erase(it);
    --t.count;
    hold.unlock();
    *rc = MPI_SUCCESS;
    // Freeing an active one is erroneous in MPI 4; the collective is finished first, as every
    // rank takes part in it.
    if (e.active != MPI_REQUEST_NULL) *rc = MPI_Wait(&e.active, MPI_STATUS_IGNORE);
    const int freed = PMPI_Request_free(request);  // MPI's own, the handle
    let_go(e);  // after it: MPI's persistent request may still refer to the types, op and communicator
    if (*rc == MPI_SUCCESS) *rc = freed;
    return true;
}

void forget(MPI_Comm comm) {
    std::vector<Entry> dropped;
    {
        Table& t = table();
        std::lock_guard<std::mutex> hold(t.lock);
        for (auto it = t.entries.begin(); it != t.entries.end();) {
            if (comm != MPI_COMM_NULL && it->second.comm != comm) {
                ++it;
                continue;
            }
            dropped.push_back(std::move(it->second));
            it = t.entries.erase(it);
            --t.count;
        }
    }
    for (const Entry& e : dropped) let_go(e);
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
