// The Fortran waits and tests on Open MPI (fortran.hpp, fortran_common.cpp), so that a Fortran
// program waiting on a non-blocking collective advances gridcoll's operations. Open MPI 4.1's
// mpi_f08 tests call pmpi_test_ and its kin, so those names advance the operations too.
#include "fortran.hpp"

using namespace gridcoll::pmpi::fortran;

namespace {

// Looked up at first use: a C program has no Fortran bindings loaded.
const NativeCompletion& open_mpi() {
    static const char* const names[8] = {"ompi_wait_f",    "ompi_test_f",    "ompi_waitall_f",  "ompi_testall_f",
                                         "ompi_waitany_f", "ompi_testany_f", "ompi_waitsome_f", "ompi_testsome_f"};
    static const NativeCompletion n = native_completion(names);
    return n;
}

}  // namespace

GRIDCOLL_FORTRAN(void, mpi_wait, MPI_WAIT, ompi_wait_f, F* req, F* status, F* ierr) {
    wait(open_mpi(), req, status, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_waitall, MPI_WAITALL, ompi_waitall_f, F* n, F* reqs, F* statuses, F* ierr) {
    waitall(open_mpi(), n, reqs, statuses, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_waitany, MPI_WAITANY, ompi_waitany_f, F* n, F* reqs, F* index, F* status, F* ierr) {
    waitany(open_mpi(), n, reqs, index, status, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_waitsome, MPI_WAITSOME, ompi_waitsome_f, F* n, F* reqs, F* outcount, F* indices, F* statuses,
                 F* ierr) {
    waitsome(open_mpi(), n, reqs, outcount, indices, statuses, ierr);
}

GRIDCOLL_FORTRAN(void, mpi_test, MPI_TEST, ompi_test_f, F* req, F* flag, F* status, F* ierr) {
    test(open_mpi(), req, flag, status, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_test_, gridcoll_fortran_mpi_test, F* req, F* flag, F* status, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_testall, MPI_TESTALL, ompi_testall_f, F* n, F* reqs, F* flag, F* statuses, F* ierr) {
    testall(open_mpi(), n, reqs, flag, statuses, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_testall_, gridcoll_fortran_mpi_testall, F* n, F* reqs, F* flag, F* statuses, F* ierr)

GRIDCOLL_FORTRAN(void, mpi_testany, MPI_TESTANY, ompi_testany_f, F* n, F* reqs, F* index, F* flag, F* status, F* ierr) {
    testany(open_mpi(), n, reqs, index, flag, status, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_testany_, gridcoll_fortran_mpi_testany, F* n, F* reqs, F* index, F* flag, F* status,
                      F* ierr)

GRIDCOLL_FORTRAN(void, mpi_testsome, MPI_TESTSOME, ompi_testsome_f, F* n, F* reqs, F* outcount, F* indices, F* statuses,
                 F* ierr) {
    testsome(open_mpi(), n, reqs, outcount, indices, statuses, ierr);
}
GRIDCOLL_FORTRAN_NAME(void, pmpi_testsome_, gridcoll_fortran_mpi_testsome, F* n, F* reqs, F* outcount, F* indices,
                      F* statuses, F* ierr)
