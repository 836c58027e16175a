// The Fortran entry points of the seventeen non-blocking collectives on Open MPI (fortran.hpp):
// the blocking ones' conversions (fortran_collectives.cpp), the library's C entry point, and its
// request handed back as Fortran's handle.
#include "fortran.hpp"

using namespace gridcoll::pmpi::fortran;

GRIDCOLL_FORTRAN(void, mpi_ibarrier, MPI_IBARRIER, ompi_ibarrier_f, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ibarrier(comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ibcast, MPI_IBCAST, ompi_ibcast_f, void* buf, F* n, F* t, F* root, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ibcast(buffer(buf), *n, type(t), *root, comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ireduce, MPI_IREDUCE, ompi_ireduce_f, void* s, void* r, F* n, F* t, F* o, F* root, F* c,
                 F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ireduce(buffer(s), buffer(r), *n, type(t), op(o), *root, comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iallreduce, MPI_IALLREDUCE, ompi_iallreduce_f, void* s, void* r, F* n, F* t, F* o, F* c,
                 F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iallreduce(buffer(s), buffer(r), *n, type(t), op(o), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iscan, MPI_ISCAN, ompi_iscan_f, void* s, void* r, F* n, F* t, F* o, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iscan(buffer(s), buffer(r), *n, type(t), op(o), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iexscan, MPI_IEXSCAN, ompi_iexscan_f, void* s, void* r, F* n, F* t, F* o, F* c, F* req,
                 F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iexscan(buffer(s), buffer(r), *n, type(t), op(o), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iscatter, MPI_ISCATTER, ompi_iscatter_f, void* s, F* sn, F* st, void* r, F* rn, F* rt,
                 F* root, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iscatter(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), *root, comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_igather, MPI_IGATHER, ompi_igather_f, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root,
                 F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Igather(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), *root, comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iallgather, MPI_IALLGATHER, ompi_iallgather_f, void* s, F* sn, F* st, void* r, F* rn, F* rt,
                 F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iallgather(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ialltoall, MPI_IALLTOALL, ompi_ialltoall_f, void* s, F* sn, F* st, void* r, F* rn, F* rt,
                 F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ialltoall(buffer(s), *sn, type(st), buffer(r), *rn, type(rt), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, ompi_ireduce_scatter_block_f, void* s,
                 void* r, F* n, F* t, F* o, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ireduce_scatter_block(buffer(s), buffer(r), *n, type(t), op(o), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ireduce_scatter, MPI_IREDUCE_SCATTER, ompi_ireduce_scatter_f, void* s, void* r, F* counts,
                 F* t, F* o, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Ireduce_scatter(buffer(s), buffer(r), counts, type(t), op(o), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iallgatherv, MPI_IALLGATHERV, ompi_iallgatherv_f, void* s, F* sn, F* st, void* r, F* counts,
                 F* displs, F* rt, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iallgatherv(buffer(s), *sn, type(st), buffer(r), counts, displs, type(rt), comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_igatherv, MPI_IGATHERV, ompi_igatherv_f, void* s, F* sn, F* st, void* r, F* counts,
                 F* displs, F* rt, F* root, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Igatherv(buffer(s), *sn, type(st), buffer(r), counts, displs, type(rt), *root, comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_iscatterv, MPI_ISCATTERV, ompi_iscatterv_f, void* s, F* counts, F* displs, F* st, void* r,
                 F* rn, F* rt, F* root, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc = MPI_Iscatterv(buffer(s), counts, displs, type(st), buffer(r), *rn, type(rt), *root, comm(c), &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ialltoallw, MPI_IALLTOALLW, ompi_ialltoallw_f, void* s, F* scounts, F* sdispls, F* st,
                 void* r, F* rcounts, F* rdispls, F* rt, F* c, F* req, F* ierr) {
    const MPI_Comm k = comm(c);
    void* in = buffer(s);
    const std::vector<MPI_Datatype> send = types(st, k, in == MPI_IN_PLACE), recv = types(rt, k);
    MPI_Request q;
    const int rc = MPI_Ialltoallw(in, scounts, sdispls, send.data(), buffer(r), rcounts, rdispls, recv.data(), k, &q);
    set_request(ierr, rc, q, req);
}

GRIDCOLL_FORTRAN(void, mpi_ialltoallv, MPI_IALLTOALLV, ompi_ialltoallv_f, void* s, F* scounts, F* sdispls, F* st,
                 void* r, F* rcounts, F* rdispls, F* rt, F* c, F* req, F* ierr) {
    MPI_Request q;
    const int rc =
        MPI_Ialltoallv(buffer(s), scounts, sdispls, type(st), buffer(r), rcounts, rdispls, type(rt), comm(c), &q);
    set_request(ierr, rc, q, req);
}
