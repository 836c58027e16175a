#include "handed_requests.hpp"

#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nonblocking.hpp"

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
    std::unordered_set<MPI_Request> point_to_point;  // the program's, for blocking_wait.cpp
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
    h.point_to_point.erase(request);
}

void note_point_to_point(MPI_Request request) {
    if (!kKept || request == MPI_REQUEST_NULL) return;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    h.point_to_point.insert(request);
    h.requests.erase(request);
}

void forget_point_to_point(MPI_Request request) {
    if (!kKept || request == MPI_REQUEST_NULL) return;
    Handed& h = kept();
    std::lock_guard<std::mutex> hold(h.lock);
    h.point_to_point.erase(request);
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

namespace {

// Tests every handed-out request among `reqs` (each known complete), keeping their statuses in
// `kept_statuses` by index.
void test_handed_ones(int n, MPI_Request reqs[], std::vector<std::pair<int, MPI_Status>>& kept_statuses) {
    for (int i = 0; i < n; ++i) {
        if (!handed(reqs[i])) continue;
        MPI_Status status;
        if (test_handed(reqs, i, &status)) kept_statuses.emplace_back(i, status);
    }
}

void put_back(const std::vector<std::pair<int, MPI_Status>>& kept_statuses, MPI_Status statuses[]) {
    if (statuses == MPI_STATUSES_IGNORE) return;
    for (const auto& [i, status] : kept_statuses) statuses[i] = status;
}

}  // namespace

int waitall_keeping_handed(int n, MPI_Request reqs[], MPI_Status statuses[]) {
    if (none_kept() || reqs == nullptr) return PMPI_Waitall(n, reqs, statuses);
    std::vector<std::pair<int, MPI_Status>> kept_statuses;
    test_handed_ones(n, reqs, kept_statuses);
    const int all = PMPI_Waitall(n, reqs, statuses);
    put_back(kept_statuses, statuses);
    return all;
}

int testall_keeping_handed(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
    if (none_kept() || reqs == nullptr) return PMPI_Testall(n, reqs, flag, statuses);
    std::vector<MPI_Request> others(reqs, reqs + n);
    for (int i = 0; i < n; ++i) {
        if (!handed(reqs[i])) continue;
        if (engine().pending(reqs[i])) {
            *flag = 0;  // not all complete: nothing is completed
            return MPI_SUCCESS;
        }
        others[static_cast<std::size_t>(i)] = MPI_REQUEST_NULL;
    }
    const int rc = PMPI_Testall(n, others.data(), flag, statuses);
    for (int i = 0; i < n; ++i)
        if (!handed(reqs[i])) reqs[i] = others[static_cast<std::size_t>(i)];
    if (rc != MPI_SUCCESS || !*flag) return rc;
    std::vector<std::pair<int, MPI_Status>> kept_statuses;
    test_handed_ones(n, reqs, kept_statuses);
    put_back(kept_statuses, statuses);
    return MPI_SUCCESS;
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
