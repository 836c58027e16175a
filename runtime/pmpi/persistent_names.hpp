// The names of the persistent collectives' init calls in this build (persistent.hpp):
// GRIDCOLL_INIT(Bcast) is the entry point the library exports, GRIDCOLL_MPI_INIT(Bcast) the MPI
// library's own; neither is defined where the MPI library has none (SimGrid's SMPI, MPICH 3).
#pragma once

#include <mpi.h>

#if defined(OPEN_MPI) && !defined(GRIDCOLL_SMPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)  // Open MPI 4.1's pcollreq extension
#define GRIDCOLL_INIT(name) MPIX_##name##_init
#define GRIDCOLL_MPI_INIT(name) PMPIX_##name##_init
#elif MPI_VERSION >= 4 && !defined(GRIDCOLL_SMPI)
#define GRIDCOLL_INIT(name) MPI_##name##_init
#define GRIDCOLL_MPI_INIT(name) PMPI_##name##_init
#endif

// The collective's MPI name, as the log and errors give it.
#define GRIDCOLL_INIT_NAME(name) "MPI_" #name "_init"
