// The profiling-interface entry points of MPI 4's large-count v-variants (allgatherv, gatherv,
// scatterv, alltoallv, alltoallw: blocking, non-blocking and persistent _c forms;
// large_count.hpp). Unlike the collectives whose blocks every rank knows alike, these are not
// narrowed to their int forms: each rank knows only its own count and displacement arrays, so
// no rank could know whether another's fit in an int, and a rank running gridcoll's schedule
// beside one running MPI's would hang. The library's irregular path reads the MPI_Count and MPI_Aint arrays as they are
// (count_array.hpp) and handles blocks of any size, so every rank takes it whatever its counts;
// where the method is MPI's own, the MPI library's own _c call runs, with the program's arrays.
#include "large_count.hpp"

#ifdef GRIDCOLL_LARGE_COUNT

#include "collectives.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

#define GRIDCOLL_EXPORT extern "C" __attribute__((visibility("default")))

namespace pmpi = gridcoll::pmpi;
namespace large_count = gridcoll::pmpi::large_count;
namespace persistent = gridcoll::pmpi::persistent;
using pmpi::run_nonblocking;  // an MPI_I... call (nonblocking.hpp)

GRIDCOLL_EXPORT int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                     MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    return pmpi::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, nullptr,
                            [&](MPI_Request*) {
                                return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                         recvtype, comm);
                            });
}

GRIDCOLL_EXPORT int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    return run_nonblocking("MPI_Iallgatherv_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, req,
                                [&](MPI_Request* r) {
                                    return PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                                              displs, recvtype, comm, r);
                                });
    });
}

GRIDCOLL_EXPORT int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                  int root, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    return pmpi::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, nullptr,
                         [&](MPI_Request*) {
                             return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                                   root, comm);
                         });
}

GRIDCOLL_EXPORT int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   int root, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    return run_nonblocking("MPI_Igatherv_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, req,
                             [&](MPI_Request* r) {
                                 return PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                        recvtype, root, comm, r);
                             });
    });
}

GRIDCOLL_EXPORT int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   int root, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    return pmpi::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, nullptr,
                          [&](MPI_Request*) {
                              return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                                     recvtype, root, comm);
                          });
}

GRIDCOLL_EXPORT int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    int root, MPI_Comm comm, MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    return run_nonblocking("MPI_Iscatterv_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, req,
                              [&](MPI_Request* r) {
                                  return PMPI_Iscatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                                          recvtype, root, comm, r);
                              });
    });
}

GRIDCOLL_EXPORT int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    return pmpi::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                           nullptr, [&](MPI_Request*) {
                               return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                       rdispls, recvtype, comm);
                           });
}

GRIDCOLL_EXPORT int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                     MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    return run_nonblocking("MPI_Ialltoallv_c", comm, {sendtype, recvtype}, MPI_OP_NULL, [&] {
        return pmpi::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               req, [&](MPI_Request* r) {
                                   return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                                            recvcounts, rdispls, recvtype, comm, r);
                               });
    });
}

GRIDCOLL_EXPORT int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    const large_count::CForm c_form;  // the log names the _c form
    return pmpi::alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                           nullptr, [&](MPI_Request*) {
                               return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                                       rdispls, recvtypes, comm);
                           });
}

GRIDCOLL_EXPORT int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                     MPI_Request* req) {
    const large_count::CForm c_form;  // the log names the _c form
    return run_nonblocking("MPI_Ialltoallw_c", comm, pmpi::alltoallw_types(sendbuf, sendtypes, recvtypes, comm),
                           MPI_OP_NULL, [&] {
                               return pmpi::alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                                      rdispls, recvtypes, comm, req, [&](MPI_Request* r) {
                                                          return PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls,
                                                                                   sendtypes, recvbuf, recvcounts,
                                                                                   rdispls, recvtypes, comm, r);
                                                      });
                           });
}

// The persistent forms: the init call makes MPI's own _c persistent request, whose handle the
// program keeps (persistent.hpp); each start runs the library's irregular path on the program's
// arrays, which MPI 4 says the program leaves unchanged while the handle lives, or starts MPI's
// request where the method is MPI's own (so `mpi_own` is never called there).

namespace {

const pmpi::OwnCall kStartsMpiRequest = [](MPI_Request*) { return MPI_ERR_INTERN; };

}  // namespace

GRIDCOLL_EXPORT int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Allgatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                                          info, &native);
    return persistent::make(rc, native, "MPI_Allgatherv_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                        recvtype, comm, r, kStartsMpiRequest);
                            },
                            req);
}

GRIDCOLL_EXPORT int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                       int root, MPI_Comm comm, MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Gatherv_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                                       info, &native);
    return persistent::make(rc, native, "MPI_Gatherv_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                                     recvtype, root, comm, r, kStartsMpiRequest);
                            },
                            req);
}

GRIDCOLL_EXPORT int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                        MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Scatterv_init_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                                        comm, info, &native);
    return persistent::make(rc, native, "MPI_Scatterv_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                                      recvtype, root, comm, r, kStartsMpiRequest);
                            },
                            req);
}

GRIDCOLL_EXPORT int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                         MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Alltoallv_init_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                         recvtype, comm, info, &native);
    return persistent::make(rc, native, "MPI_Alltoallv_init_c", comm, {sendtype, recvtype}, MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                                       rdispls, recvtype, comm, r, kStartsMpiRequest);
                            },
                            req);
}

GRIDCOLL_EXPORT int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                         const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                         MPI_Info info, MPI_Request* req) {
    MPI_Request native = MPI_REQUEST_NULL;
    const int rc = PMPI_Alltoallw_init_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                         recvtypes, comm, info, &native);
    const pmpi::KeptTypes kept(sendbuf, sendtypes, recvtypes, comm);
    return persistent::make(rc, native, "MPI_Alltoallw_init_c", comm, kept.all(), MPI_OP_NULL,
                            [=](MPI_Request* r) {
                                const large_count::CForm start_c_form;  // a start of the _c form
                                return pmpi::alltoallw(sendbuf, sendcounts, sdispls, kept.send(), recvbuf, recvcounts,
                                                       rdispls, kept.recv(), comm, r, kStartsMpiRequest);
                            },
                            req);
}

#endif  // GRIDCOLL_LARGE_COUNT
