// The Fortran entry points of the seventeen blocking collectives on Open MPI (fortran.hpp): the
// handles and Fortran's MPI_IN_PLACE / MPI_BOTTOM converted, then the library's C entry point.
// Fortran's default integer is C's int in Open MPI's builds here, so counts and displacements
// pass through as they are.
#include <type_traits>

#include "fortran.hpp"

static_assert(std::is_same_v<MPI_Fint, int>, "the Fortran bindings assume Fortran's integer is C's int");

using namespace gridcoll::pmpi::fortran;

GRIDCOLL_FORTRAN(void, mpi_barrier, MPI_BARRIER, ompi_barrier_f, F* c, F* ierr) {
    set_error(ierr, MPI_Barrier(comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_bcast, MPI_BCAST, ompi_bcast_f, void* buf, F* n, F* t, F* root, F* c, F* ierr) {
    set_error(ierr, MPI_Bcast(buffer(buf), *n, type(t), *root, comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_reduce, MPI_REDUCE, ompi_reduce_f, void* s, void* r, F* n, F* t, F* o, F* root, F* c,
                 F* ierr) {
    set_error(ierr, MPI_Reduce(buffer(s), buffer(r), *n, type(t), op(o), *root, comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_allreduce, MPI_ALLREDUCE, ompi_allreduce_f, void* s, void* r, F* n, F* t, F* o, F* c,
                 F* ierr) {
    set_error(ierr, MPI_Allreduce(buffer(s), buffer(r), *n, type(t), op(o), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_scan, MPI_SCAN, ompi_scan_f, void* s, void* r, F* n, F* t, F* o, F* c, F* ierr) {
    set_error(ierr, MPI_Scan(buffer(s), buffer(r), *n, type(t), op(o), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_exscan, MPI_EXSCAN, ompi_exscan_f, void* s, void* r, F* n, F* t, F* o, F* c, F* ierr) {
    set_error(ierr, MPI_Exscan(buffer(s), buffer(r), *n, type(t), op(o), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_scatter, MPI_SCATTER, ompi_scatter_f, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root,
                 F* c, F* ierr) {
    set_error(ierr, MPI_Scatter(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), *root, comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_gather, MPI_GATHER, ompi_gather_f, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root,
                 F* c, F* ierr) {
    set_error(ierr, MPI_Gather(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), *root, comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_allgather, MPI_ALLGATHER, ompi_allgather_f, void* s, F* sn, F* st, void* r, F* rn, F* rt,
                 F* c, F* ierr) {
    set_error(ierr, MPI_Allgather(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_alltoall, MPI_ALLTOALL, ompi_alltoall_f, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* c,
                 F* ierr) {
    set_error(ierr, MPI_Alltoall(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, ompi_reduce_scatter_block_f, void* s,
                 void* r, F* n, F* t, F* o, F* c, F* ierr) {
    set_error(ierr, MPI_Reduce_scatter_block(buffer(s), buffer(r), *n, type(t), op(o), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_reduce_scatter, MPI_REDUCE_SCATTER, ompi_reduce_scatter_f, void* s, void* r, F* counts, F* t,
                 F* o, F* c, F* ierr) {
    set_error(ierr, MPI_Reduce_scatter(buffer(s), buffer(r), counts, type(t), op(o), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_allgatherv, MPI_ALLGATHERV, ompi_allgatherv_f, void* s, F* sn, F* st, void* r, F* counts,
                 F* displs, F* rt, F* c, F* ierr) {
    set_error(ierr, MPI_Allgatherv(buffer(s), *sn, type(st), buffer(r), counts, displs, type(rt), comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_gatherv, MPI_GATHERV, ompi_gatherv_f, void* s, F* sn, F* st, void* r, F* counts, F* displs,
                 F* rt, F* root, F* c, F* ierr) {
    set_error(ierr, MPI_Gatherv(buffer(s), *sn, type(st), buffer(r), counts, displs, type(rt), *root, comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_scatterv, MPI_SCATTERV, ompi_scatterv_f, void* s, F* counts, F* displs, F* st, void* r,
                 F* rn, F* rt, F* root, F* c, F* ierr) {
    set_error(ierr, MPI_Scatterv(buffer(s), counts, displs, type(st), buffer(r), *rn, type(rt), *root, comm(c)));
}

GRIDCOLL_FORTRAN(void, mpi_alltoallw, MPI_ALLTOALLW, ompi_alltoallw_f, void* s, F* scounts, F* sdispls, F* st, void* r,
                 F* rcounts, F* rdispls, F* rt, F* c, F* ierr) {
    const MPI_Comm k = comm(c);
    void* in = buffer(s);
    const std::vector<MPI_Datatype> send = types(st, k, in == MPI_IN_PLACE), recv = types(rt, k);
    set_error(ierr, MPI_Alltoallw(in, scounts, sdispls, send.data(), buffer(r), rcounts, rdispls, recv.data(), k));
}

GRIDCOLL_FORTRAN(void, mpi_alltoallv, MPI_ALLTOALLV, ompi_alltoallv_f, void* s, F* scounts, F* sdispls, F* st, void* r,
                 F* rcounts, F* rdispls, F* rt, F* c, F* ierr) {
    set_error(ierr,
              MPI_Alltoallv(buffer(s), scounts, sdispls, type(st), buffer(r), rcounts, rdispls, type(rt), comm(c)));
}
