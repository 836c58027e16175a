#include "handles.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "progress_thread.hpp"

namespace gridcoll::pmpi {

namespace {

struct Held {
    int users = 0;
    bool freed = false;  // the program freed it while held
};

// What a kind of handle is made of: MPI_Op or MPI_Datatype (one type in MPICH, so told apart by
// the kind, not the type).
struct OpKind {
    using Handle = MPI_Op;
    static bool skipped(MPI_Op op);
    static int free(MPI_Op* op) { return PMPI_Op_free(op); }
    static constexpr MPI_Op null() { return MPI_OP_NULL; }
};
struct TypeKind {
    using Handle = MPI_Datatype;
    static bool skipped(MPI_Datatype type);
    static int free(MPI_Datatype* type) { return PMPI_Type_free(type); }
    static constexpr MPI_Datatype null() { return MPI_DATATYPE_NULL; }
};

std::mutex g_due_lock;
std::vector<MPI_Comm> g_due;  // frees due on the progress thread, for a program thread to make

struct CommKind {
    using Handle = MPI_Comm;
    static bool skipped(MPI_Comm c) { return c == MPI_COMM_NULL || c == MPI_COMM_WORLD || c == MPI_COMM_SELF; }
    static int free(MPI_Comm* c) {
        if (!on_progress_thread()) return PMPI_Comm_free(c);
        std::lock_guard<std::mutex> hold(g_due_lock);
        g_due.push_back(*c);
        return MPI_SUCCESS;
    }
    static constexpr MPI_Comm null() { return MPI_COMM_NULL; }
};

template <class Kind>
struct Registry {
    std::mutex lock;
    std::map<typename Kind::Handle, Held> held;
};

template <class Kind>
Registry<Kind>& registry() {
    static auto* r = new Registry<Kind>;  // never destroyed: the progress thread may use it until it stops at exit
    return *r;
}

bool OpKind::skipped(MPI_Op op) {
    for (MPI_Op known : {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR,
                         MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP, MPI_OP_NULL})
        if (op == known) return true;
    return false;
}

// No MPI call on the handle: a datatype that matters only at the root may be anything elsewhere.
// The predefined ones are held too (a program never frees them, so nothing is deferred).
bool TypeKind::skipped(MPI_Datatype type) { return type == MPI_DATATYPE_NULL; }

template <class Kind>
void add(typename Kind::Handle h) {
    if (Kind::skipped(h)) return;
    auto& r = registry<Kind>();
    std::lock_guard<std::mutex> hold(r.lock);
    ++r.held[h].users;
}

template <class Kind>
void drop(typename Kind::Handle h) {
    if (Kind::skipped(h)) return;
    auto& r = registry<Kind>();
    bool free_now = false;
    {
        std::lock_guard<std::mutex> hold(r.lock);
        auto it = r.held.find(h);
        if (it == r.held.end() || --it->second.users > 0) return;
        free_now = it->second.freed;
        r.held.erase(it);
    }
    if (free_now) Kind::free(&h);
}

template <class Kind>
bool defer(typename Kind::Handle* h) {
    auto& r = registry<Kind>();
    std::lock_guard<std::mutex> hold(r.lock);
    auto it = r.held.find(*h);
    if (it == r.held.end()) return false;
    it->second.freed = true;
    *h = Kind::null();
    return true;
}

template <class Kind>
bool is_held(typename Kind::Handle h) {
    auto& r = registry<Kind>();
    std::lock_guard<std::mutex> hold(r.lock);
    return r.held.count(h) > 0;
}

}  // namespace

void hold_op(MPI_Op op) { add<OpKind>(op); }
void hold_type(MPI_Datatype type) { add<TypeKind>(type); }
void release_op(MPI_Op op) { drop<OpKind>(op); }
void release_type(MPI_Datatype type) { drop<TypeKind>(type); }
void hold_comm(MPI_Comm comm) { add<CommKind>(comm); }
void release_comm(MPI_Comm comm) { drop<CommKind>(comm); }
bool comm_held(MPI_Comm comm) { return is_held<CommKind>(comm); }
bool defer_comm_free(MPI_Comm* comm) { return defer<CommKind>(comm); }
void free_deferred_comms() {
    if (on_progress_thread()) return;
    std::vector<MPI_Comm> due;
    {
        std::lock_guard<std::mutex> hold(g_due_lock);
        if (g_due.empty()) return;
        due.swap(g_due);
    }
    for (MPI_Comm c : due) PMPI_Comm_free(&c);
}

bool defer_op_free(MPI_Op* op) { return defer<OpKind>(op); }
bool defer_type_free(MPI_Datatype* type) { return defer<TypeKind>(type); }

}  // namespace gridcoll::pmpi
