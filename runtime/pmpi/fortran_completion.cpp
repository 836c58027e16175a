// The Fortran waits and tests on Open MPI and SMPI (fortran.hpp, fortran_common.cpp), so that a Fortran
// program waiting on a non-blocking collective advances gridcoll's operations. Open MPI 4.1's
// mpi_f08 tests call pmpi_test_ and its kin, so those names advance the operations too.
#include <dlfcn.h>

#include <cstddef>

#include "fortran.hpp"

using namespace gridcoll::pmpi::fortran;

namespace {

#ifdef GRIDCOLL_SMPI
// SimGrid 3.32's own MPI_Testany and MPI_Testsome (C's and Fortran's) return at once, as if no
// request were active, when a non-blocking collective's request (SimGrid's or gridcoll's
// generalized one) is among them; under SMPI the two are made of its Fortran MPI_Test on each
// request, as intercept_nonblocking.cpp does for C, and so are its MPI_Waitany and MPI_Waitsome
// when a request the library handed out is among theirs (handed_requests.hpp, fortran_common.cpp).
// Fortran's indices count from 1.
using NativeTest = void(F*, F*, F*, F*);

NativeTest* native_test() {
    static NativeTest* const test = next_as<NativeTest>(GRIDCOLL_NATIVE_FORTRAN(test));
    return test;
}

// SimGrid's Fortran MPI_Test on each active request in turn, with the status `status_at(k)`
// gives (k: how many completed before), until `completed(i)` (request i did) says to stop or one
// fails (its error code in ierr). Whether any request was active.
template <class StatusAt, class Completed>
bool test_each(F* count, F* reqs, F* ierr, StatusAt&& status_at, Completed&& completed) {
    set_error(ierr, MPI_SUCCESS);
    bool active = false;
    F so_far = 0;
    for (F i = 0; i < *count; ++i) {
        if (reqs[i] == MPI_FORTRAN_REQUEST_NULL) continue;
        active = true;
        F done = 0, rc = MPI_SUCCESS;
        native_test()(&reqs[i], &done, status_at(so_far), &rc);
        set_error(ierr, rc);
        if (rc != MPI_SUCCESS) break;
        if (done && completed(i, so_far++)) break;
    }
    return active;
}

void testany_by_test(F* count, F* reqs, F* index, F* flag, F* status, F* ierr) {
    *index = MPI_UNDEFINED;
    *flag = 0;
    const bool active = test_each(
        count, reqs, ierr, [&](F) { return status; },
        [&](F i, F) {
            *index = i + 1;
            *flag = 1;
            return true;
        });
    if (!active) *flag = 1;  // none active: the flag set, the index MPI_UNDEFINED
}

void testsome_by_test(F* count, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
    *outcount = 0;
    const bool active = test_each(
        count, reqs, ierr, [&](F k) { return status_slot(statuses, k); },
        [&](F i, F) {
            indices[(*outcount)++] = i + 1;
            return false;
        });
    if (!active) *outcount = MPI_UNDEFINED;
}
#endif

// Looked up at first use: a C program has no Fortran bindings loaded.
const NativeCompletion& native() {
    static const char* const names[8] = {
        GRIDCOLL_NATIVE_FORTRAN(wait),    GRIDCOLL_NATIVE_FORTRAN(test),    GRIDCOLL_NATIVE_FORTRAN(waitall),
        GRIDCOLL_NATIVE_FORTRAN(testall), GRIDCOLL_NATIVE_FORTRAN(waitany), GRIDCOLL_NATIVE_FORTRAN(testany),
        GRIDCOLL_NATIVE_FORTRAN(waitsome), GRIDCOLL_NATIVE_FORTRAN(testsome)};
    static const NativeCompletion n = [] {
        NativeCompletion found = native_completion(names);
#ifdef GRIDCOLL_SMPI
        found.testany = testany_by_test;
        found.testsome = testsome_by_test;
#endif
        return found;
    }();
    return n;
}

}  // namespace

#ifdef GRIDCOLL_SMPI
bool gridcoll::pmpi::fortran::statuses_ignored(const F* statuses) {
    static F* const statuses_ignore = static_cast<F*>(dlsym(RTLD_DEFAULT, "mpi_statuses_ignore_"));
    return statuses == statuses_ignore;
}

F* gridcoll::pmpi::fortran::status_slot(F* statuses, F k) {
    static F* const status_ignore = static_cast<F*>(dlsym(RTLD_DEFAULT, "mpi_status_ignore_"));
    return statuses_ignored(statuses) ? status_ignore : statuses + kStatusInts * static_cast<std::size_t>(k);
}
#endif

const NativeCompletion& gridcoll::pmpi::fortran::native_completion_calls() { return native(); }

GRIDCOLL_FORTRAN(void, mpi_wait, MPI_WAIT, ompi_wait_f, F* req, F* status, F* ierr) {
    wait(native(), req, status, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_waitall, MPI_WAITALL, ompi_waitall_f, F* n, F* reqs, F* statuses, F* ierr) {
    waitall(native(), n, reqs, statuses, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_waitany, MPI_WAITANY, ompi_waitany_f, F* n, F* reqs, F* index, F* status, F* ierr) {
    waitany(native(), n, reqs, index, status, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_waitsome, MPI_WAITSOME, ompi_waitsome_f, F* n, F* reqs, F* outcount, F* indices, F* statuses,
                 F* ierr) {
    waitsome(native(), n, reqs, outcount, indices, statuses, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_test, MPI_TEST, ompi_test_f, F* req, F* flag, F* status, F* ierr) {
    test(native(), req, flag, status, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_test_, gridcoll_fortran_mpi_test, F* req, F* flag, F* status, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_testall, MPI_TESTALL, ompi_testall_f, F* n, F* reqs, F* flag, F* statuses, F* ierr) {
    testall(native(), n, reqs, flag, statuses, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_testall_, gridcoll_fortran_mpi_testall, F* n, F* reqs, F* flag, F* statuses, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_testany, MPI_TESTANY, ompi_testany_f, F* n, F* reqs, F* index, F* flag, F* status, F* ierr) {
    testany(native(), n, reqs, index, flag, status, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_testany_, gridcoll_fortran_mpi_testany, F* n, F* reqs, F* index, F* flag, F* status,
                      F* ierr)

GRIDCOLL_FORTRAN(void, mpi_testsome, MPI_TESTSOME, ompi_testsome_f, F* n, F* reqs, F* outcount, F* indices, F* statuses,
                 F* ierr) {
    testsome(native(), n, reqs, outcount, indices, statuses, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_testsome_, gridcoll_fortran_mpi_testsome, F* n, F* reqs, F* outcount, F* indices,
                      F* statuses, F* ierr)
