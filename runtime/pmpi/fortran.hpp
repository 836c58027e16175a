// Fortran programs on Open MPI and under SimGrid's SMPI. Open MPI's Fortran bindings (mpif.h,
// `use mpi`, `use mpi_f08`) call PMPI_* themselves, and SimGrid's (libsimgrid's mpi_x_) call
// libsimgrid's own MPI_*, which a program's shared object cannot interpose; either way a Fortran
// program's calls never reach the library's MPI_* symbols. The library therefore defines the
// Fortran entry points of the calls it intercepts, under every name Open MPI gives them: mpi_x_
// (gfortran's, and smpif90's), mpi_x, mpi_x__ and MPI_X (other compilers'), and ompi_x_f (what
// Open MPI's mpi_f08 module's wrappers call). Each converts the Fortran handles, the Fortran
// MPI_IN_PLACE and MPI_BOTTOM, and calls the library's C entry point, or, for the calls the
// library only watches (the request completions, the communicator constructors), the MPI
// library's own Fortran entry point (GRIDCOLL_NATIVE_FORTRAN), found after the library with
// dlsym(RTLD_NEXT). Under SMPI they are linked into the program's shared object with the rest of
// the static library, so the program's calls bind to them.
// MPICH's bindings mostly call MPI_* and reach the C entry points; its mpi_f08 bindings of the
// calls without a buffer (MPI_Init, MPI_Finalize, MPI_Barrier, the waits and tests, the
// communicator constructors and frees) call PMPI_* themselves, so the MPICH build defines those
// f08 entry points (fortran_mpich_f08.cpp) and leaves the Open MPI ones out.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#define GRIDCOLL_FORTRAN_NAME(ret, name, target, ...) \
    extern "C" __attribute__((visibility("default"), alias(#target))) ret name(__VA_ARGS__);

// GRIDCOLL_FORTRAN(ret, mpi_x, MPI_X, ompi_x_f, parameters...) { body }: defines the body once,
// as gridcoll_fortran_mpi_x (hidden), exported under the five names.
#define GRIDCOLL_FORTRAN(ret, lower, upper, ompi, ...)                           \
    extern "C" ret gridcoll_fortran_##lower(__VA_ARGS__);                        \
    GRIDCOLL_FORTRAN_NAME(ret, lower, gridcoll_fortran_##lower, __VA_ARGS__)     \
    GRIDCOLL_FORTRAN_NAME(ret, lower##_, gridcoll_fortran_##lower, __VA_ARGS__)  \
    GRIDCOLL_FORTRAN_NAME(ret, lower##__, gridcoll_fortran_##lower, __VA_ARGS__) \
    GRIDCOLL_FORTRAN_NAME(ret, upper, gridcoll_fortran_##lower, __VA_ARGS__)     \
    GRIDCOLL_FORTRAN_NAME(ret, ompi, gridcoll_fortran_##lower, __VA_ARGS__)      \
    extern "C" ret gridcoll_fortran_##lower(__VA_ARGS__)

// The MPI library's own Fortran entry point of call X (comm_dup, wait ...): Open MPI's
// ompi_x_f, SimGrid's mpi_x_.
#ifdef GRIDCOLL_SMPI
#define GRIDCOLL_NATIVE_FORTRAN(x) "mpi_" #x "_"
#else
#define GRIDCOLL_NATIVE_FORTRAN(x) "ompi_" #x "_f"
#endif

namespace gridcoll::pmpi::fortran {

// A buffer argument: the Fortran MPI_IN_PLACE and MPI_BOTTOM (addresses of Open MPI's common
// blocks, under any of the four manglings, or of SimGrid's variables) become C's; any other
// address is the buffer itself.
void* buffer(void* p);

inline MPI_Comm comm(const MPI_Fint* c) { return PMPI_Comm_f2c(*c); }
inline MPI_Datatype type(const MPI_Fint* t) { return PMPI_Type_f2c(*t); }
inline MPI_Op op(const MPI_Fint* o) { return PMPI_Op_f2c(*o); }
// An alltoallw's array of datatypes as C's, one per rank of `c` (of its remote group, for an
// intercommunicator); empty for an array MPI ignores (`ignored`: the send types with MPI_IN_PLACE).
std::vector<MPI_Datatype> types(const MPI_Fint* t, MPI_Comm c, bool ignored = false);

// The error code out (the mpi_f08 wrappers always pass one; be safe with none).
inline void set_error(MPI_Fint* ierr, int rc) {
    if (ierr) *ierr = static_cast<MPI_Fint>(rc);
}

// A non-blocking call's request out, as Fortran's handle.
inline void set_request(MPI_Fint* ierr, int rc, MPI_Request request, MPI_Fint* out) {
    set_error(ierr, rc);
    if (rc == MPI_SUCCESS) *out = PMPI_Request_c2f(request);
}

// The MPI library's own Fortran entry point NAME (the one after this library); aborts with a message
// naming it when the MPI library has none.
void* next_entry(const char* name);

}  // namespace gridcoll::pmpi::fortran

namespace gridcoll::pmpi::fortran {

template <class Function>
Function* next_as(const char* name) {
    return reinterpret_cast<Function*>(next_entry(name));
}

// A communicator constructor: the MPI library's own Fortran entry point NAME (the new
// communicator and the error code its last arguments), then gridcoll's duplicate of the result.
void made(MPI_Fint rc, const MPI_Fint* out, MPI_Fint* ierr);
template <class... Args>
void construct(const char* name, MPI_Fint* out, MPI_Fint* ierr, Args... args) {
    MPI_Fint rc = MPI_SUCCESS;
    next_as<void(Args..., MPI_Fint*, MPI_Fint*)>(name)(args..., out, &rc);
    made(rc, out, ierr);
}

// The MPI library's own Fortran waits and tests (every argument a pointer; Fortran's statuses,
// logicals and 1-based indices stay theirs). The library's waits advance gridcoll's pending
// operations and run the native test in turn; its tests advance them first.
using F = MPI_Fint;
struct NativeCompletion {
    void (*wait)(F* req, F* status, F* ierr);
    void (*test)(F* req, F* flag, F* status, F* ierr);
    void (*waitall)(F* n, F* reqs, F* statuses, F* ierr);
    void (*testall)(F* n, F* reqs, F* flag, F* statuses, F* ierr);
    void (*waitany)(F* n, F* reqs, F* index, F* status, F* ierr);
    void (*testany)(F* n, F* reqs, F* index, F* flag, F* status, F* ierr);
    void (*waitsome)(F* n, F* reqs, F* outcount, F* indices, F* statuses, F* ierr);
    void (*testsome)(F* n, F* reqs, F* outcount, F* indices, F* statuses, F* ierr);
};
// The eight entry points by name, in the order above.
NativeCompletion native_completion(const char* const names[8]);
// The MPI library's own Fortran waits and tests, as the library's Fortran entry points use them
// (fortran_completion.cpp).
const NativeCompletion& native_completion_calls();
#ifdef GRIDCOLL_SMPI
// Status k of a Fortran array of statuses under SMPI (SimGrid's MPI_STATUS_IGNORE for its
// MPI_STATUSES_IGNORE), and whether the array is that.
constexpr std::size_t kStatusInts = sizeof(MPI_Status) / sizeof(F);  // SimGrid's Fortran status is C's
F* status_slot(F* statuses, F k);
bool statuses_ignored(const F* statuses);
#endif

void wait(const NativeCompletion& n, F* req, F* status, F* ierr);
void test(const NativeCompletion& n, F* req, F* flag, F* status, F* ierr);
void waitall(const NativeCompletion& n, F* count, F* reqs, F* statuses, F* ierr);
void testall(const NativeCompletion& n, F* count, F* reqs, F* flag, F* statuses, F* ierr);
void waitany(const NativeCompletion& n, F* count, F* reqs, F* index, F* status, F* ierr);
void testany(const NativeCompletion& n, F* count, F* reqs, F* index, F* flag, F* status, F* ierr);
void waitsome(const NativeCompletion& n, F* count, F* reqs, F* outcount, F* indices, F* statuses, F* ierr);
void testsome(const NativeCompletion& n, F* count, F* reqs, F* outcount, F* indices, F* statuses, F* ierr);

}  // namespace gridcoll::pmpi::fortran
