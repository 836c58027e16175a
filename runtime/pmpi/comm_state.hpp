// The PMPI library's state: the settings, rules and world Topology read at MPI_Init, and per
// communicator a CommState kept as an MPI attribute (so it goes when the communicator is freed,
// and a duplicated or split communicator gets its own) holding:
//   - its Topology: the world's, restricted to its members (Topology::select);
//   - the choice per call shape (choice.hpp), cached;
//   - its built schedules per (collective, root, bytes, element, method), at most
//     Settings::cache of them (the oldest goes first); a schedule some rank cannot build is
//     agreed on by all (one allreduce at a blocking call's first use) and the call goes to the MPI
//     library;
//   - a duplicate of the communicator for the executor's traffic, made where its members call
//     collectively: at MPI_Init for MPI_COMM_WORLD, when a communicator is made (MPI_Comm_dup,
//     _split, _create, the topology constructors ...: communicator_made), else at the first
//     blocking call that runs a gridcoll schedule (a decision every rank makes alike). Starting a
//     non-blocking collective is local in MPI, so a non-blocking call never makes it (nor agrees
//     on a schedule): before it exists (MPI_Comm_idup's communicators, or a failed early
//     duplicate), such calls go to the MPI library;
//   - with verbose, per call-site class (collective, size class = power-of-two band, method)
//     the count of calls and why, printed by the communicator's rank 0 the first time and in a
//     table at MPI_Finalize.
// Communicators the library leaves to MPI: intercommunicators, one-rank ones, and every one
// when the library is off (settings). Under MPI_THREAD_MULTIPLE the program's threads may call
// collectives on different communicators at once (MPI orders calls on one communicator): the
// per-communicator state is theirs alone, the shared parts (the list of states, the progress
// engine) are locked, and "inside the library" is per thread.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "choice.hpp"
#include "gridcoll/runtime/executor.hpp"
#include "gridcoll/algorithms/model/rules.hpp"
#include "gridcoll/algorithms/topology.hpp"
#include "settings.hpp"
#include "tag_space.hpp"

namespace gridcoll::pmpi {

class CommState {
public:
    CommState(MPI_Comm user, std::shared_ptr<const Topology> topology, int id);
    ~CommState();
    CommState(const CommState&) = delete;
    CommState& operator=(const CommState&) = delete;

    MPI_Comm user() const { return user_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    const Topology& topology() const { return *topology_; }

    // The method for a call of this shape (cached), counted for the verbose log. A non-blocking
    // call gets the MPI library where gridcoll's method could not start locally (for_this_call).
    const Choice& choice(const CallShape& call);
    // This rank's schedule of the call with method m and root `root`, or nullptr when some rank
    // could not build it (then every rank gets nullptr). Collective at a key's first use. In a
    // persistent collective's start (PersistentStart), the handle's own: built here at the first
    // start, failure included, never agreed on, the cache neither read nor written.
    std::shared_ptr<const BuiltSchedule> schedule(const CallShape& call, const Method& m, int root);
    // The schedule of an irregular call (its blocks in `counts`), built at every call without an
    // agreement round (not every rank may know the other ranks' counts, so ranks cannot agree
    // on a cache key); the last one is kept for a repeat with the same counts. A method that
    // cannot be built here is an Error (the flat and leaders methods build for any counts).
    std::shared_ptr<const BuiltSchedule> irregular_schedule(const CallShape& call, const Method& m, int root,
                                                            std::shared_ptr<const Counts> counts);
    // The duplicate of the communicator that gridcoll's own traffic uses (made now if need be:
    // collective).
    MPI_Comm traffic();
    // Makes the duplicate if there is none (collective); false when MPI cannot (no context id
    // left): then the communicator's calls go to MPI until it can.
    bool ensure_duplicate();
    // The communicator's name for the log: the program's (MPI_Comm_set_name), else comm#<id>.
    std::string name() const;
    // Runs a built schedule on the communicator's duplicate with the communicator's next tag (a
    // persistent collective's start: its own, PersistentStart);
    // reductions by `reduce` if given. With `nb` (a non-blocking call) the schedule is started
    // and handed to the progress engine, and *nb set to the request the program gets.
    void run(std::shared_ptr<const BuiltSchedule> s, const Buffers& b, const ReduceFn* reduce, MPI_Request* nb = nullptr);
    // A persistent collective's block of tags, fixed at its init call (MPI 4 matches persistent
    // collectives in the order of their init calls, whatever the order of their starts): the
    // communicator's own count of init calls numbers the persistent blocks (tag_space.hpp), so
    // neither a start nor a free ever moves the sequence. -1 when MPI_TAG_UB leaves fewer than
    // 1024 blocks, or once the communicator has had as many init calls as there are blocks:
    // those persistent collectives are then MPI's own.
    int persistent_tag();
    // Scratch buffer `which` (0..3) of at least `bytes` bytes, kept between calls.
    std::byte* scratch(int which, std::uint64_t bytes);

    // Rank 0: the verbose summary table.
    void print_summary() const;

private:
    struct Shape {
        Collective coll;
        std::uint64_t bytes, elem;
        bool commutative, reducible;
        bool operator<(const Shape& o) const {
            return std::tie(coll, bytes, elem, commutative, reducible) <
                   std::tie(o.coll, o.bytes, o.elem, o.commutative, o.reducible);
        }
        bool operator==(const Shape& o) const { return !(*this < o) && !(o < *this); }
    };
    struct ClassStats {
        std::uint64_t calls = 0;
        std::string why;
    };
    void note(const CallShape& call, const Choice& c);
    // `c` for this call: a blocking call makes the duplicate (or goes to the MPI library when MPI
    // cannot); a non-blocking call goes to the MPI library before the duplicate exists, and with
    // an irregular method that reads counts only other ranks have (sharing them blocks).
    const Choice& for_this_call(const CallShape& call, const Choice& c);
    int next_tag();
    // The schedule for `call` built on this rank alone; null (and logged) when it cannot be.
    std::shared_ptr<const BuiltSchedule> build_here(const CallShape& call, const Method& m, int root,
                                                    const std::string& key);

    MPI_Comm user_;
    MPI_Comm dup_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::shared_ptr<const Topology> topology_;
    int id_;
    // choices_ ... classes_ and last_irregular_: a persistent collective's start (MPI_Start is not
    // a collective call) may run beside another thread's collective on the communicator.
    std::mutex memo_lock_;
    std::map<Shape, Choice> choices_;
    std::optional<Shape> last_shape_;
    const Choice* last_choice_ = nullptr;
    std::map<std::string, std::shared_ptr<const BuiltSchedule>> schedules_;  // null: not buildable somewhere
    std::uint64_t sequence_ = 0;         // gridcoll operations run on this communicator
    std::uint64_t persistent_inits_ = 0;  // persistent collectives made on it
    std::deque<std::string> schedule_order_;
    std::optional<Executor> executor_;
    struct LastIrregular {
        Collective coll;
        int root;
        std::string method;
        std::uint64_t elem;
        std::shared_ptr<const Counts> counts;
        std::shared_ptr<const BuiltSchedule> built;
    };
    std::optional<LastIrregular> last_irregular_;
    std::vector<std::byte> scratch_[4];
    std::map<std::tuple<Collective, bool, int, std::string, std::string, bool>, ClassStats> classes_;  // nb?, label, _c?
};

struct Library {
    Settings settings;
    ResolverSettings resolver;  // the decision, from settings (choice.hpp)
    std::shared_ptr<const Topology> world;
    std::string topology_from;  // how the world Topology was found, for the log
    bool active = false;
    int keyval = MPI_KEYVAL_INVALID;
    int world_rank = 0;
    TagSpace tags;  // from MPI_TAG_UB, at MPI_Init
    int thread_level = MPI_THREAD_SINGLE;
    // Shared by the program's threads (MPI_THREAD_MULTIPLE): the states made, under `lock`.
    std::mutex lock;
    int next_id = 0;
    std::vector<CommState*> live;
};

Library& library();

// This thread is inside the library: the MPI calls it makes now go straight to MPI.
bool& inside();

// At MPI_Init / MPI_Init_thread (after the MPI library's) and MPI_Finalize (before it). A bad
// setting or topology source is printed with what is wrong and the job aborted.
void start(int thread_level);
void stop();

// While alive, this thread runs a persistent collective's start, which must leave the
// communicator's state as it was (the ranks may start in different orders, and between other
// collectives in different orders): its schedule (CommState::run) takes `tag`, not the
// sequence's next, and CommState::schedule takes the one in `pinned` (see there).
using PinnedSchedule = std::optional<std::shared_ptr<const BuiltSchedule>>;
class PersistentStart {
public:
    PersistentStart(int tag, PinnedSchedule* pinned);
    ~PersistentStart();
    PersistentStart(const PersistentStart&) = delete;
    PersistentStart& operator=(const PersistentStart&) = delete;
};

// The state of `comm`, made at its first call; nullptr when the MPI library takes every call.
CommState* state_for(MPI_Comm comm);

// After a call that made `comm` (its members all call it): its state and duplicate now, so that
// its non-blocking collectives run gridcoll's methods from the first one. MPI_COMM_NULL: nothing.
void communicator_made(MPI_Comm comm);

// Messages: "gridcoll-pmpi[<world rank>]: text" on stderr.
void log(const std::string& text);

// Ends the job after an error the library cannot hand back (its message logged first), with
// exit status `code`: MPI_Abort on `comm`, or under SMPI, whose smpirun reports a job ended by
// MPI_Abort as a success (SimGrid 3.32), _exit() of the one process that runs every simulated rank.
[[noreturn]] void stop_job(MPI_Comm comm, int code);

}  // namespace gridcoll::pmpi
