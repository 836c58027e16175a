#include "handed_requests.hpp"

#include <mutex>
#include <unordered_set>

namespace gridcoll::pmpi {

namespace {

#ifdef GRIDCOLL_SMPI
constexpr bool kKept = true;
#else
constexpr bool kKept = false;
#endif

struct Handed {
    std::mutex lock;
    std::unordered_set<MPI_Request> requests;
    std::unordered_set<MPI_Request> point_to_point;  // the program's, for mixed_wait.cpp
};

Handed& kept() {
    static Handed* const h = new Handed;  // never destroyed: a completion may come at exit
    return *h;
}

bool none_kept() {
    if (!kKept) return true;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    return h.requests.empty() && h.point_to_point.empty();
}

// Tests the handed-out request reqs[i] (taking it back): whether it completed.
bool test_handed(MPI_Request reqs[], int i, MPI_Status* status) {
    const MPI_Request r = reqs[i];
    int flag = 0;
    PMPI_Test(&reqs[i], &flag, status);
    take_back(r);
    return flag != 0;
}

}  // namespace

bool any_handed_out() { return !none_kept(); }

bool handed(MPI_Request r) {
    if (!kKept || r == MPI_REQUEST_NULL) return false;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    return h.requests.count(r) > 0;
}

void take_back(MPI_Request r) {
    if (!kKept) return;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    h.requests.erase(r);
    h.point_to_point.erase(r);
}

void hand_out(MPI_Request request) {
    if (!kKept) return;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    h.requests.insert(request);
}

void note_point_to_point(MPI_Request request) {
    if (!kKept || request == MPI_REQUEST_NULL) return;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    h.point_to_point.insert(request);
}

bool point_to_point(MPI_Request r) {
    if (!kKept || r == MPI_REQUEST_NULL) return false;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    return h.point_to_point.count(r) > 0;
}

int complete_handed_one(int n, MPI_Request reqs[], MPI_Status* status) {
    if (none_kept() || reqs == nullptr) return MPI_UNDEFINED;
    for (int i = 0; i < n; ++i)
        if (handed(reqs[i]) && test_handed(reqs, i, status)) return i;
    return MPI_UNDEFINED;
}

int complete_handed_some(int n, MPI_Request reqs[], int indices[], MPI_Status statuses[]) {
    if (none_kept() || reqs == nullptr) return 0;
    int done = 0;
    for (int i = 0; i < n; ++i) {
        if (!handed(reqs[i])) continue;
        if (test_handed(reqs, i, statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[done]))
            indices[done++] = i;
    }
    return done;
}

HandedBack::HandedBack(int n, const MPI_Request* reqs) : reqs_(reqs) {
    if (none_kept() || reqs == nullptr) return;
    for (int i = 0; i < n; ++i)
        if (handed(reqs[i]) || point_to_point(reqs[i])) watched_.emplace_back(i, reqs[i]);
}

HandedBack::~HandedBack() {
    for (const auto& [i, r] : watched_)
        if (reqs_[i] == MPI_REQUEST_NULL) take_back(r);
}

}  // namespace gridcoll::pmpi
