// What the Fortran entry points of both builds share (fortran.hpp): Fortran's MPI_IN_PLACE and
// MPI_BOTTOM, the MPI library's own entry points found after the library, the constructors'
// early duplicate, and the waits and tests that advance gridcoll's pending operations (as
// intercept_nonblocking.cpp does for C): with none pending, or from inside the library, the MPI
// library's own wait; else the pending operations advanced and its test run in turn.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "comm_state.hpp"
#include "fortran.hpp"
#include "handed_requests.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

namespace gridcoll::pmpi::fortran {

namespace {

// Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM are common blocks of libmpi, named after the
// Fortran compiler's mangling; whichever of the four names exist are the sentinels (MPICH's
// Fortran bindings convert their own before calling C: none exist there). SimGrid's are two
// variables of libsimgrid, mpi_in_place_ and mpi_bottom_.
#ifdef GRIDCOLL_SMPI
constexpr std::array<const char*, 4> kInPlaceNames = {"mpi_in_place_", "", "", ""};
constexpr std::array<const char*, 4> kBottomNames = {"mpi_bottom_", "", "", ""};
#else
constexpr std::array<const char*, 4> kInPlaceNames = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                                                      "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
constexpr std::array<const char*, 4> kBottomNames = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                                    "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM"};
#endif

struct Sentinels {
    std::array<void*, 4> in_place{};
    std::array<void*, 4> bottom{};
};

const Sentinels& sentinels() {
    static const Sentinels found = [] {
        Sentinels s;
        for (std::size_t i = 0; i < 4; ++i) {
            if (*kInPlaceNames[i]) s.in_place[i] = dlsym(RTLD_DEFAULT, kInPlaceNames[i]);
            if (*kBottomNames[i]) s.bottom[i] = dlsym(RTLD_DEFAULT, kBottomNames[i]);
        }
        return s;
    }();
    return found;
}

bool among(void* p, const std::array<void*, 4>& names) {
    for (void* n : names)
        if (n && n == p) return true;
    return false;
}

void advance() {
    if (!mpi_alone()) engine().progress();
}

// Advances gridcoll's operations and runs TEST (which sets its error code and returns whether
// the wait is over) until it says so.
template <class Test>
void wait_by_testing(F* ierr, Test&& test) {
    F rc = MPI_SUCCESS;
    while (true) {
        engine().progress();
        const bool over = test(&rc);
        if (rc != MPI_SUCCESS || over) break;
    }
    set_error(ierr, rc);
}

// The Fortran form of persistent::Swap: the library's persistent collectives' handles among a
// Fortran call's requests stand for their active requests while it runs (MPICH's mpi_f08 waits
// and tests call PMPI_* themselves).
class Swap {
public:
    Swap(F count, F* reqs) : reqs_(reqs) {
        if (!persistent::any() || reqs == nullptr) return;
        for (F i = 0; i < count; ++i) {
            const MPI_Request handle = PMPI_Request_f2c(reqs[i]);
            MPI_Request active = MPI_REQUEST_NULL;
            if (!persistent::active_of(handle, &active)) continue;
            slots_.push_back({i, reqs[i], handle});
            reqs[i] = PMPI_Request_c2f(active);
        }
    }
    ~Swap() {
        for (const Slot& s : slots_) {
            persistent::set_active(s.handle, PMPI_Request_f2c(reqs_[s.index]));
            reqs_[s.index] = s.fortran;
        }
    }
    Swap(const Swap&) = delete;
    Swap& operator=(const Swap&) = delete;

private:
    struct Slot {
        F index;
        F fortran;
        MPI_Request handle;
    };
    F* reqs_;
    std::vector<Slot> slots_;
};

// A Fortran request handle as C's. SimGrid's conversion throws for a handle it no longer knows
// (met in pmpi_fortran after its Fortran completion calls, with the library linked in): taken
// as no request, that is, one freed.
MPI_Request c_request(F handle) {
    try {
        return PMPI_Request_f2c(handle);
    } catch (const std::exception&) {
        return MPI_REQUEST_NULL;
    }
}

// HandedBack (handed_requests.hpp) for Fortran handles: the handed-out (and kept point-to-point)
// requests among `reqs` that the call freed are taken back; any() says whether any was handed out.
class HandedBackF {
public:
    HandedBackF(F count, const F* reqs) : reqs_(reqs) {
        if (reqs == nullptr || !any_handed_out()) return;  // (no conversions outside SMPI)
        for (F i = 0; i < count; ++i) {
            const MPI_Request c = c_request(reqs[i]);
            const bool ours = handed(c);
            if (ours || point_to_point(c)) watched_.emplace_back(i, c);
            any_ = any_ || ours;
        }
    }
    ~HandedBackF() {
        for (const auto& [i, c] : watched_)
            if (c_request(reqs_[i]) == MPI_REQUEST_NULL) take_back(c);
    }
    HandedBackF(const HandedBackF&) = delete;
    HandedBackF& operator=(const HandedBackF&) = delete;
    bool any() const { return any_; }

private:
    bool any_ = false;
    const F* reqs_;
    std::vector<std::pair<F, MPI_Request>> watched_;
};

// Whether `handle` is Fortran's null request under SMPI, which SimGrid 3.32's MPI_Test (and so
// its Fortran one) passes over with MPI_STATUS_IGNORE without setting the flag: the waits made of
// tests spun for ever on one. Elsewhere MPI's own test sets it; false.
bool null_request(F handle) {
#ifdef GRIDCOLL_SMPI
    return handle == MPI_FORTRAN_REQUEST_NULL;
#else
    (void)handle;
    return false;
#endif
}

// The C handles of Fortran requests.
std::vector<MPI_Request> c_requests(F count, const F* reqs) {
    std::vector<MPI_Request> c(static_cast<std::size_t>(count));
    for (F i = 0; i < count; ++i) c[static_cast<std::size_t>(i)] = c_request(reqs[i]);
    return c;
}

// wait_handed (nonblocking.hpp) of Fortran handles: the library's own requests waited for by
// one MPI_Waitany over the pending operations' messages under SMPI; true when MPI's wait may
// finish the call.
bool wait_handed(const HandedBackF& handed, F count, const F* reqs) {
    if (!handed.any()) return false;
    return gridcoll::pmpi::wait_handed(static_cast<int>(count), c_requests(count, reqs).data());
}

// MPI's own MPI_Waitall, the library's requests among `reqs` kept from SimGrid's (which left a
// complete one active beside others): under SMPI tested first (each is complete, nothing being
// pending), their statuses put back after MPI's wait, as waitall_keeping_handed does for C.
void waitall_keeping_handed(const NativeCompletion& n, const HandedBackF& handed, F* count, F* reqs, F* statuses,
                            F* ierr) {
#ifdef GRIDCOLL_SMPI
    std::vector<std::pair<F, std::vector<F>>> kept;
    for (F i = 0; handed.any() && i < *count; ++i) {
        if (!gridcoll::pmpi::handed(c_request(reqs[i]))) continue;
        F flag = 0, rc = MPI_SUCCESS;
        F* status = status_slot(statuses, i);
        n.test(&reqs[i], &flag, status, &rc);
        if (flag && !statuses_ignored(statuses)) kept.emplace_back(i, std::vector<F>(status, status + kStatusInts));
    }
    n.waitall(count, reqs, statuses, ierr);
    for (const auto& [i, status] : kept) std::copy(status.begin(), status.end(), status_slot(statuses, i));
#else
    (void)handed;
    n.waitall(count, reqs, statuses, ierr);
#endif
}

#ifdef GRIDCOLL_SMPI
// MPI_Waitall by testing each request on its own, as wait_all_testing_each does for C:
// SimGrid 3.32's MPI_Testall frees the requests that completed even when others have not, and
// the call that finds the last one complete then gives those empty statuses.
void waitall_by_test(const NativeCompletion& n, F count, F* reqs, F* statuses, F* ierr) {
    std::vector<char> open(static_cast<std::size_t>(count));
    F left = 0, rc = MPI_SUCCESS;
    for (F i = 0; i < count; ++i) {
        open[static_cast<std::size_t>(i)] = reqs[i] != MPI_FORTRAN_REQUEST_NULL;
        left += open[static_cast<std::size_t>(i)];
        F none = MPI_FORTRAN_REQUEST_NULL;
        if (reqs[i] == MPI_FORTRAN_REQUEST_NULL) n.wait(&none, status_slot(statuses, i), &rc);  // an empty status
    }
    rc = MPI_SUCCESS;
    while (left > 0 && rc == MPI_SUCCESS) {
        engine().progress();
        for (F i = 0; i < count && rc == MPI_SUCCESS; ++i) {
            if (!open[static_cast<std::size_t>(i)]) continue;
            F done = 0;
            n.test(&reqs[i], &done, status_slot(statuses, i), &rc);
            if (done) {
                open[static_cast<std::size_t>(i)] = 0;
                --left;
            }
        }
    }
    set_error(ierr, rc);
}
#endif

// MPI_Waitany / MPI_Waitsome when every active request is the library's own, under SMPI (as
// intercept_nonblocking.cpp does for C): blocks until some are complete, then tests those, at most
// `most`, the k-th one's status in status_at(k). How many, their 1-based indices in `indices`; -1
// when the caller is to wait by testing.
template <class StatusAt>
F complete_after_wait(const NativeCompletion& n, const HandedBackF& handed, F count, F* reqs, F most, F* indices,
                      StatusAt&& status_at, F* rc) {
    using gridcoll::pmpi::next_complete_handed;
    if (!handed.any()) return -1;
    const std::vector<MPI_Request> c = c_requests(count, reqs);
    const int total = static_cast<int>(count);
    if (!gridcoll::pmpi::wait_handed_any(total, c.data())) return -1;
    F done = 0;
    for (int i = next_complete_handed(total, c.data(), 0); i >= 0 && done < most;
         i = next_complete_handed(total, c.data(), i + 1)) {
        F flag = 0;
        n.test(&reqs[i], &flag, status_at(done), rc);
        if (flag || *rc != MPI_SUCCESS) indices[done++] = i + 1;  // (a failed one's index too)
        if (*rc != MPI_SUCCESS) return done;
    }
    return done > 0 ? done : -1;
}

}  // namespace

void* buffer(void* p) {
    if (p == nullptr) return p;
    if (among(p, sentinels().in_place)) return MPI_IN_PLACE;
    if (among(p, sentinels().bottom)) return MPI_BOTTOM;
    return p;
}

std::vector<MPI_Datatype> types(const F* t, MPI_Comm c, bool ignored) {
    int inter = 0, n = 0;
    if (ignored || t == nullptr || PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return {};  // MPI reports a bad one
    if (inter) PMPI_Comm_remote_size(c, &n);
    else PMPI_Comm_size(c, &n);
    std::vector<MPI_Datatype> out(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) out[static_cast<std::size_t>(j)] = PMPI_Type_f2c(t[j]);
    return out;
}

void* next_entry(const char* name) {
    void* entry = dlsym(RTLD_NEXT, name);
    if (entry == nullptr) {
        std::fprintf(stderr, "gridcoll-pmpi: the MPI library has no Fortran entry point %s\n", name);
        stop_job(MPI_COMM_WORLD, 1);
    }
    return entry;
}

void made(F rc, const F* out, F* ierr) {
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) communicator_made(PMPI_Comm_f2c(*out));
}

NativeCompletion native_completion(const char* const names[8]) {
    NativeCompletion n{};
    n.wait = next_as<void(F*, F*, F*)>(names[0]);
    n.test = next_as<void(F*, F*, F*, F*)>(names[1]);
    n.waitall = next_as<void(F*, F*, F*, F*)>(names[2]);
    n.testall = next_as<void(F*, F*, F*, F*, F*)>(names[3]);
    n.waitany = next_as<void(F*, F*, F*, F*, F*)>(names[4]);
    n.testany = next_as<void(F*, F*, F*, F*, F*, F*)>(names[5]);
    n.waitsome = next_as<void(F*, F*, F*, F*, F*, F*)>(names[6]);
    n.testsome = next_as<void(F*, F*, F*, F*, F*, F*)>(names[7]);
    return n;
}

void wait(const NativeCompletion& n, F* req, F* status, F* ierr) {
    const Swap persistent(1, req);
    const HandedBackF handed(1, req);
    if (mpi_alone() || null_request(*req) || wait_handed(handed, 1, req)) return n.wait(req, status, ierr);
    wait_by_testing(ierr, [&](F* rc) {
        F flag = 0;
        n.test(req, &flag, status, rc);
        return flag != 0;
    });
}

void waitall(const NativeCompletion& n, F* count, F* reqs, F* statuses, F* ierr) {
    const Swap persistent(*count, reqs);
    const HandedBackF handed(*count, reqs);
    if (mpi_alone() || wait_handed(handed, *count, reqs)) return waitall_keeping_handed(n, handed, count, reqs, statuses, ierr);
#ifdef GRIDCOLL_SMPI
    waitall_by_test(n, *count, reqs, statuses, ierr);
#else
    wait_by_testing(ierr, [&](F* rc) {
        F flag = 0;
        n.testall(count, reqs, &flag, statuses, rc);
        return flag != 0;
    });
#endif
}

void waitany(const NativeCompletion& n, F* count, F* reqs, F* index, F* status, F* ierr) {
    const Swap persistent(*count, reqs);
    const HandedBackF handed(*count, reqs);
    if (mpi_alone() && !handed.any()) return n.waitany(count, reqs, index, status, ierr);
#ifdef GRIDCOLL_SMPI
    F rc = MPI_SUCCESS;
    if (complete_after_wait(n, handed, *count, reqs, 1, index, [&](F) { return status; }, &rc) > 0 || rc != MPI_SUCCESS)
        return set_error(ierr, rc);
#endif
    wait_by_testing(ierr, [&](F* rc) {
        F flag = 0;  // set too when no request is active (the index then MPI_UNDEFINED)
        n.testany(count, reqs, index, &flag, status, rc);
        return flag != 0;
    });
}

void waitsome(const NativeCompletion& n, F* count, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
    const Swap persistent(*count, reqs);
    const HandedBackF handed(*count, reqs);
    if (mpi_alone() && !handed.any()) return n.waitsome(count, reqs, outcount, indices, statuses, ierr);
#ifdef GRIDCOLL_SMPI
    F rc = MPI_SUCCESS;
    *outcount = complete_after_wait(n, handed, *count, reqs, *count, indices,
                                    [&](F k) { return status_slot(statuses, k); }, &rc);
    if (*outcount > 0 || rc != MPI_SUCCESS) return set_error(ierr, rc);
#endif
    wait_by_testing(ierr, [&](F* rc) {
        n.testsome(count, reqs, outcount, indices, statuses, rc);
        return *outcount != 0;  // some completed, or MPI_UNDEFINED: none active
    });
}

void test(const NativeCompletion& n, F* req, F* flag, F* status, F* ierr) {
    const Swap persistent(1, req);
    const HandedBackF handed(1, req);
    advance();
    if (null_request(*req)) {
        *flag = 1;  // (.true.)
        return n.wait(req, status, ierr);
    }
    n.test(req, flag, status, ierr);
}

void testall(const NativeCompletion& n, F* count, F* reqs, F* flag, F* statuses, F* ierr) {
    const Swap persistent(*count, reqs);
    const HandedBackF handed(*count, reqs);
    advance();
    n.testall(count, reqs, flag, statuses, ierr);
}

void testany(const NativeCompletion& n, F* count, F* reqs, F* index, F* flag, F* status, F* ierr) {
    const Swap persistent(*count, reqs);
    const HandedBackF handed(*count, reqs);
    advance();
    n.testany(count, reqs, index, flag, status, ierr);
}

void testsome(const NativeCompletion& n, F* count, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
    const Swap persistent(*count, reqs);
    const HandedBackF handed(*count, reqs);
    advance();
    n.testsome(count, reqs, outcount, indices, statuses, ierr);
}

}  // namespace gridcoll::pmpi::fortran
