#include "comm_state.hpp"

#include <atomic>

#include "defined_pairs.hpp"
#include "handles.hpp"
#include "nonblocking.hpp"
#include "progress_thread.hpp"
#include "persistent.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <utility>
#include <unistd.h>

#include "gridcoll/runtime/comm_context.hpp"
#include "gridcoll/runtime/discover_comm.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll::pmpi {

namespace {

// Attribute value of communicators the MPI library handles alone.
char native_only_tag;
CommState* const kNativeOnly = reinterpret_cast<CommState*>(&native_only_tag);

std::string describe(const Topology& t) {
    std::string s = std::to_string(t.size()) + " ranks, " + std::to_string(t.levels()) + " level" +
                    (t.levels() == 1 ? "" : "s");
    for (int l = 0; l < t.levels(); ++l) {
        std::set<int> ids;
        for (int r = 0; r < t.size(); ++r)
            if (l < t.depth(r)) ids.insert(t.cluster(r, l));
        s += (l ? ", " : " (") + t.level_name(l) + ": " + std::to_string(ids.size());
    }
    return s + ")";
}

// MPI_Bcast, MPI_Ibcast (non-blocking), MPI_Bcast_c (large-count); `label` for `c`'s name if set.
std::string mpi_name(Collective c, bool nonblocking, const std::string& label, bool c_form) {
    std::string s = (label.empty() ? std::string(to_string(c)) : label) + (c_form ? "_c" : "");
    if (nonblocking) return "MPI_I" + s;
    s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return "MPI_" + s;
}

std::string size_class(Collective c, std::uint64_t bytes) {
    if (c == Collective::Barrier) return "-";
    // Not every rank knows these calls' sizes: their choice is made for any size.
    if (c == Collective::Gatherv || c == Collective::Scatterv || c == Collective::Alltoallv) return "any-size";
    if (bytes == 0) return "0";
    const int w = std::bit_width(bytes);
    const std::uint64_t lo = std::uint64_t{1} << (w - 1);
    return format_bytes(lo) + ".." + format_bytes(lo * 2 - 1);
}

// Each thread's last communicator and its state: valid while no state has been deleted since
// (`generation`), so a freed communicator's handle, reused by MPI, never finds a stale state.
std::atomic<std::uint64_t> generation{0};
struct LastState {
    MPI_Comm comm = MPI_COMM_NULL;
    CommState* state = nullptr;
    std::uint64_t generation = 0;
};
thread_local LastState last;

int delete_state(MPI_Comm comm, int, void* value, void*) {
    auto* s = static_cast<CommState*>(value);
    Library& lib = library();
    ++generation;
    if (s == kNativeOnly) return MPI_SUCCESS;
    // A pending operation on it uses its duplicate. MPI_Comm_free of such a communicator is
    // deferred to their end (handles.hpp), so only MPI_Comm_disconnect waits here; persistent
    // collectives the program keeps on it are MPI's own from now on.
    persistent::forget(comm);
    while (comm_held(comm)) engine().progress();
    {
        std::lock_guard<std::mutex> hold(lib.lock);
        lib.live.erase(std::remove(lib.live.begin(), lib.live.end(), s), lib.live.end());
    }
    delete s;
    return MPI_SUCCESS;
}

std::string comm_name(MPI_Comm comm, int id) {
    char name[MPI_MAX_OBJECT_NAME] = {};
    int len = 0;
    PMPI_Comm_get_name(comm, name, &len);
    return len > 0 ? std::string(name, static_cast<std::size_t>(len)) : "comm#" + std::to_string(id);
}

// The world Topology restricted to comm's members; flat when some member is not in it.
std::shared_ptr<const Topology> topology_of(MPI_Comm comm, int size) {
    const Library& lib = library();
    if (comm == MPI_COMM_WORLD) return lib.world;
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    std::vector<int> ranks(static_cast<std::size_t>(size)), in_world(ranks.size());
    for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
    PMPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    if (std::count(in_world.begin(), in_world.end(), MPI_UNDEFINED) > 0)
        return std::make_shared<const Topology>(Topology::flat(size));
    return std::make_shared<const Topology>(lib.world->select(in_world));
}

// A choice handing the call to the MPI library, `why` for the log.
Choice to_mpi(const char* why) {
    const Method native{std::string(kNativeMethod)};
    return Choice{native, native, "", why};
}

}  // namespace

Library& library() {
    static Library lib;
    return lib;
}

bool& inside() {
    thread_local bool in = false;
    return in;
}

void log(const std::string& text) {
    std::fprintf(stderr, "gridcoll-pmpi[%d]: %s\n", library().world_rank, text.c_str());
    std::fflush(stderr);
}

void stop_job(MPI_Comm comm, int code) {
#ifdef GRIDCOLL_SMPI
    (void)comm;
    std::fflush(nullptr);  // every simulated rank is in this process: end it at once
    _exit(code);
#else
    abandon_progress_thread();
    PMPI_Abort(comm, code);
    std::exit(code);  // MPI_Abort returned: it should not
#endif
}

// ---- CommState ----------------------------------------------------------------------------

CommState::CommState(MPI_Comm user, std::shared_ptr<const Topology> topology, int id)
    : user_(user), topology_(std::move(topology)), id_(id) {
    PMPI_Comm_rank(user, &rank_);
    PMPI_Comm_size(user, &size_);
}

CommState::~CommState() {
    executor_.reset();
    if (dup_ != MPI_COMM_NULL) PMPI_Comm_free(&dup_);
}

const Choice& CommState::choice(const CallShape& call) {
    const std::lock_guard<std::mutex> hold(memo_lock_);
    const Shape key{call.coll, call.bytes, call.elem, call.commutative, call.reducible};
    if (!(last_shape_ && *last_shape_ == key)) {
        auto it = choices_.find(key);
        if (it == choices_.end()) {
            const Library& lib = library();
            it = choices_.emplace(key, choose(lib.resolver, *topology_, call)).first;
        }
        last_shape_ = key;
        last_choice_ = &it->second;
    }
    const Choice& c = for_this_call(call, *last_choice_);
    if (library().settings.verbose > 0) note(call, c);
    return c;
}

const Choice& CommState::for_this_call(const CallShape& call, const Choice& c) {
    static const Choice no_duplicate = to_mpi("MPI could not make the communicator's duplicate");
    static const Choice undefined = to_mpi("MPI does not define the operation on the datatype: its error, as without gridcoll");
    if (c.native()) return c;
    if (!call.defined) return undefined;
    if (!engine().building()) return ensure_duplicate() ? c : no_duplicate;
    static const Choice before_duplicate = to_mpi("non-blocking, before a blocking call made the duplicate");
    static const Choice counts_elsewhere =
        to_mpi("non-blocking; the method reads counts only other ranks have, and sharing them blocks");
    if (dup_ == MPI_COMM_NULL) return before_duplicate;
    if (is_irregular(call.coll) && find_algorithm(call.coll, c.method.algorithm).needs_all_counts)
        return counts_elsewhere;
    return c;
}

void CommState::note(const CallShape& call, const Choice& c) {
    const bool nb = engine().building() != nullptr;
    ClassStats& st = classes_[{call.coll, nb, call.coll == Collective::Barrier ? 0 : std::bit_width(call.bytes),
                               to_string(c.method), call.label, call.c_form}];
    if (st.calls++ == 0) {
        st.why = c.reason;
        if (rank_ == 0)
            log(name() + " " + mpi_name(call.coll, nb, call.label, call.c_form) + " " + size_class(call.coll, call.bytes) + ": " +
                to_string(c.method) + " (" + c.reason + ")");
    }
}

bool CommState::ensure_duplicate() {
    if (dup_ != MPI_COMM_NULL) return true;
    // Errors returned, whatever the program's handler: MPI may have no context id left (a
    // program holding many communicators), and then the call goes to MPI rather than failing.
    // The agreement on a context id fails on every rank alike. The duplicate gets the program's
    // handler back.
    // (SimGrid 3.32 gives a communicator that was never given one no handler at all, and warns
    // when that is set back or freed: MPI's default, MPI_ERRORS_ARE_FATAL, is set back then.)
    MPI_Errhandler program = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(user_, &program);
    const bool none = program == MPI_ERRHANDLER_NULL;
    PMPI_Comm_set_errhandler(user_, MPI_ERRORS_RETURN);
    MPI_Comm d = MPI_COMM_NULL;
    const int rc = PMPI_Comm_dup(user_, &d);
    PMPI_Comm_set_errhandler(user_, none ? MPI_ERRORS_ARE_FATAL : program);
    if (rc == MPI_SUCCESS) PMPI_Comm_set_errhandler(d, none ? MPI_ERRORS_ARE_FATAL : program);
    if (!none) PMPI_Errhandler_free(&program);
    if (rc != MPI_SUCCESS) {
        if (library().settings.verbose > 0)
            log(name() + ": MPI could not duplicate it (error " + std::to_string(rc) +
                "); its calls go to the MPI library until a duplicate can be made");
        return false;
    }
    dup_ = d;
    executor_.emplace(dup_);
    return true;
}

namespace {
struct StartContext { int tag = -1; PinnedSchedule* pinned = nullptr; };
thread_local StartContext t_start;
}  // namespace

PersistentStart::PersistentStart(int tag, PinnedSchedule* pinned) { t_start = {tag, pinned}; }
PersistentStart::~PersistentStart() { t_start = {}; }

std::string CommState::name() const { return comm_name(user_, id_); }

std::shared_ptr<const BuiltSchedule> CommState::schedule(const CallShape& call, const Method& m, int root) {
    ensure_duplicate();
    const std::string key = std::string(to_string(call.coll)) + " " + std::to_string(root) + " " +
                            std::to_string(call.bytes) + " " + std::to_string(call.elem) +
                            (call.commutative ? " c " : " n ") + to_string(m);
    if (PinnedSchedule* pinned = std::exchange(t_start.pinned, nullptr)) {
        if (!pinned->has_value()) *pinned = build_here(call, m, root, key);
        return **pinned;
    }
    auto it = schedules_.find(key);
    if (it != schedules_.end()) return it->second;
    std::shared_ptr<const BuiltSchedule> built = build_here(call, m, root, key);
    // A blocking call agrees with the other ranks; a non-blocking one must start locally, and
    // its build fails or succeeds alike everywhere (the same request and method on every rank).
    if (!engine().building() && !agree_min(built ? 1 : 0, dup_)) built.reset();
    const Library& lib = library();
    if (built && lib.settings.verbose > 1)
        log(name() + " rank " + std::to_string(rank_) + ": built " + key + " (" + std::to_string(built->schedule.size_steps()) +
            " steps)");
    if (schedules_.size() >= lib.settings.cache && !schedule_order_.empty()) {
        schedules_.erase(schedule_order_.front());
        schedule_order_.pop_front();
    }
    schedule_order_.push_back(key);
    return schedules_.emplace(key, std::move(built)).first->second;
}

std::shared_ptr<const BuiltSchedule> CommState::build_here(const CallShape& call, const Method& m, int root,
                                                           const std::string& key) {
    Request r;
    r.coll = call.coll;
    r.size = size_;
    r.rank = rank_;
    r.root = root;
    r.bytes = call.coll == Collective::Barrier ? 0 : call.bytes;
    r.elem = call.elem;
    r.commutative = call.commutative;
    r.params = m.params;
    r.topology = topology_.get();
    try {
        return std::make_shared<const BuiltSchedule>(build_schedule(r, m.algorithm));
    } catch (const std::exception& e) {
        if (library().settings.verbose > 0)
            log(name() + " rank " + std::to_string(rank_) + ": " + key + ": " + to_string(m) + " cannot be built: " +
                e.what() + "; the MPI library takes this call");
        return nullptr;
    }
}

MPI_Comm CommState::traffic() {
    ensure_duplicate();
    return dup_;
}

std::shared_ptr<const BuiltSchedule> CommState::irregular_schedule(const CallShape& call, const Method& m, int root,
                                                   std::shared_ptr<const Counts> counts) {
    ensure_duplicate();
    const std::lock_guard<std::mutex> hold(memo_lock_);
    const std::string method = to_string(m);
    if (last_irregular_ && last_irregular_->coll == call.coll && last_irregular_->root == root &&
        last_irregular_->method == method && last_irregular_->elem == call.elem && *last_irregular_->counts == *counts)
        return last_irregular_->built;
    Request r;
    r.coll = call.coll;
    r.size = size_;
    r.rank = rank_;
    r.root = root;
    r.bytes = call.bytes;
    r.elem = call.elem;
    r.commutative = call.commutative;
    r.params = m.params;
    r.topology = topology_.get();
    r.counts = counts;
    auto built = std::make_shared<const BuiltSchedule>(build_schedule(r, m.algorithm));
    last_irregular_ = LastIrregular{call.coll, root, method, call.elem, std::move(counts), std::move(built)};
    return last_irregular_->built;
}

int CommState::next_tag() { return library().tags.sequence_tag(sequence_++); }

int CommState::persistent_tag() {
    const int tag = library().tags.persistent_tag(persistent_inits_);
    if (tag >= 0) ++persistent_inits_;  // a block is never reused
    return tag;
}

void CommState::run(std::shared_ptr<const BuiltSchedule> s, const Buffers& b, const ReduceFn* reduce, MPI_Request* nb) {
    ensure_duplicate();
    const int tag = t_start.tag >= 0 ? std::exchange(t_start.tag, -1) : next_tag();
    if (nb) return engine().start(std::move(s), b, reduce, dup_, tag, nb);
    executor_->set_tag(tag);
    // Pending non-blocking operations move on while this one runs, progress thread or not: a
    // rank may wait here for one that waits for them (MPI's progress rule).
    if (!engine().idle()) executor_->run_beside(*s, b, reduce, advance_beside);
    else if (reduce) executor_->run(*s, b, *reduce);
    else executor_->run(*s, b);
}

std::byte* CommState::scratch(int which, std::uint64_t bytes) {
    if (PendingOp* op = engine().building()) return op->scratch(bytes);  // a non-blocking call's own
    auto& v = scratch_[which];
    if (v.size() < bytes) v.resize(static_cast<std::size_t>(bytes));
    return v.data();
}

void CommState::print_summary() const {
    if (rank_ != 0 || classes_.empty()) return;
    log(name() + " (" + describe(*topology_) + "), calls per class:");
    for (const auto& [key, st] : classes_) {
        const auto& [coll, nb, width, method, label, c_form] = key;
        const std::uint64_t lo = width == 0 ? 0 : std::uint64_t{1} << (width - 1);
        log("  " + mpi_name(coll, nb, label, c_form) + " " + size_class(coll, lo) + " " + method + " x" +
            std::to_string(st.calls) + " (" + st.why + ")");
    }
}

// ---- the library --------------------------------------------------------------------------

void start(int thread_level) {
    Library& lib = library();
    PMPI_Comm_rank(MPI_COMM_WORLD, &lib.world_rank);
    int* tag_ub = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);  // predefined on the world only
    lib.tags = tag_space(flag && tag_ub ? *tag_ub : 0);
    inside() = true;
    try {
        lib.settings = read_settings([](const char* name) { return std::getenv(name); });
        if (!lib.settings.enabled) {
            inside() = false;
            return;
        }
        lib.thread_level = thread_level;
        lib.resolver = resolver_settings(lib.settings);
        const std::string& source = lib.settings.topology;
        lib.topology_from = source + (lib.settings.topology_variable.empty() ? " (the default)"
                                                                             : " (" + lib.settings.topology_variable + ")");
        int size = 1;
        PMPI_Comm_size(MPI_COMM_WORLD, &size);
        if ((source == "discover" || source.rfind("discover:", 0) == 0) && size > 1) {
            const std::string cache = source == "discover" ? "" : source.substr(9);
            DiscoveredTopology d = discovered_topology(MPI_COMM_WORLD, cache, discovery::Options{}, true);
            lib.world = d.topology;
            char took[64];
            std::snprintf(took, sizeof took, "discovered at MPI_Init in %.2f s", d.seconds);
            lib.topology_from += d.from_cache ? ", read from the cache" : ", " + std::string(took) +
                                                                            (cache.empty() ? "" : ", cached");
        } else if (source.rfind("map:", 0) == 0) {
            // the rank map itself, lines separated by ';'
            std::string text = source.substr(4);
            std::replace(text.begin(), text.end(), ';', '\n');
            const std::string origin = lib.settings.topology_variable.empty() ? "topology" : lib.settings.topology_variable;
            auto t = std::make_shared<const Topology>(Topology::from_text(text, origin));
            if (t->size() != size)
                throw Error(origin + ": the rank map has " + std::to_string(t->size()) + " ranks, the communicator " +
                            std::to_string(size));
            lib.world = std::move(t);
            lib.topology_from = "a rank map in " + origin;
        } else {
            lib.world = comm_topology(MPI_COMM_WORLD, source);
        }
    } catch (const std::exception& e) {
        log(std::string("error: ") + e.what());
        stop_job(MPI_COMM_WORLD, 2);
    }
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &lib.keyval, nullptr);
    open_defined_pairs();
    lib.active = true;
    inside() = false;
    // MPI_COMM_WORLD's duplicate now, while the ranks call collectively: its non-blocking calls
    // then start locally from the first one (CommState::for_this_call).
    if (CommState* world = state_for(MPI_COMM_WORLD)) world->traffic();
    if (lib.settings.verbose > 0 && lib.world_rank == 0) {
        std::string forced;
        for (Collective c : all_collectives())
            if (const auto& f = lib.settings.forced[static_cast<std::size_t>(c)])
                forced += " " + std::string(to_string(c)) + "=" + to_string(f->method);
        log("active; topology " + lib.topology_from + ": " + describe(*lib.world) + "; decision " +
            std::string(to_string(lib.settings.decision)) +
            (lib.settings.rules.empty() ? "" : " " + lib.settings.rules) +
            (lib.settings.decision == DecisionSource::Rules ? "" : ", min_bytes " + format_bytes(lib.settings.min_bytes)) +
            (forced.empty() ? "" : "; forced" + forced));
    }
}

void stop() {
    Library& lib = library();
    if (!lib.active) return;
    engine().drain();
    persistent::forget(MPI_COMM_NULL);  // MPI does not ask for inactive ones to be freed
    inside() = true;
    if (lib.settings.verbose > 0)
        for (const CommState* s : lib.live) s->print_summary();
    while (!lib.live.empty()) {
        CommState* s = lib.live.back();
        if (PMPI_Comm_delete_attr(s->user(), lib.keyval) != MPI_SUCCESS) {  // else delete_state did this
            lib.live.pop_back();
            delete s;
        }
    }
    ++generation;
    PMPI_Comm_free_keyval(&lib.keyval);
    forget_defined_pairs();
    lib.active = false;
    inside() = false;
}

void communicator_made(MPI_Comm comm) {
    if (comm == MPI_COMM_NULL || !library().settings.early_duplicate) return;
    if (CommState* s = state_for(comm)) {
        inside() = true;
        s->ensure_duplicate();
        inside() = false;
    }
}

CommState* state_for(MPI_Comm comm) {
    Library& lib = library();
    if (!lib.active || inside()) return nullptr;
    engine().progress();  // a later collective advances the pending non-blocking ones
    if (comm == last.comm && last.generation == generation) return last.state;
    void* value = nullptr;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, lib.keyval, &value, &found) != MPI_SUCCESS) return nullptr;  // MPI reports it
    CommState* s = static_cast<CommState*>(value);
    if (!found) {
        int inter = 0, size = 1;
        PMPI_Comm_test_inter(comm, &inter);
        PMPI_Comm_size(comm, &size);
        if (inter || size < 2) {
            s = kNativeOnly;
        } else {
            inside() = true;
            int id = 0;
            {
                std::lock_guard<std::mutex> hold(lib.lock);
                id = lib.next_id++;
            }
            s = new CommState(comm, topology_of(comm, size), id);
            {
                std::lock_guard<std::mutex> hold(lib.lock);
                lib.live.push_back(s);
            }
            inside() = false;
        }
        PMPI_Comm_set_attr(comm, lib.keyval, s);
    }
    last = LastState{comm, s == kNativeOnly ? nullptr : s, generation};
    return last.state;
}

}  // namespace gridcoll::pmpi
