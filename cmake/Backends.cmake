# Finds the two MPI backends from the machine's packages.
#   Open MPI: CMake's FindMPI (mpicxx from openmpi-bin / libopenmpi-dev).
#   SimGrid SMPI: Debian ships no CMake config, so we locate smpirun, the SMPI headers and
#   libsimgrid, and compile the MPI-facing sources with SMPI's mpi.h exactly as smpicxx would.
set(GRIDCOLL_HAVE_MPI OFF)
set(GRIDCOLL_HAVE_SMPI OFF)

if(GRIDCOLL_WITH_MPI)
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(GRIDCOLL_HAVE_MPI ON)
    # By name, not by path: Open MPI treats an absolute mpirun path as an installation prefix.
    set(GRIDCOLL_MPIRUN mpirun)
  else()
    message(WARNING "Open MPI not found: the Open MPI backend is off (apt-get install libopenmpi-dev openmpi-bin)")
  endif()
endif()

# MPICH beside Open MPI (Debian's libmpich-dev): only the PMPI library is built against it, for
# MPICH programs (runtime/pmpi). Its headers and library live under MPICH's own names.
set(GRIDCOLL_HAVE_MPICH OFF)
if(GRIDCOLL_WITH_MPI)
  find_path(GRIDCOLL_MPICH_INCLUDE mpi.h PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/mpich /usr/include/mpich
            NO_DEFAULT_PATH)
  find_library(GRIDCOLL_MPICH_LIB mpich)
  find_program(GRIDCOLL_MPIRUN_MPICH mpirun.mpich)
  if(GRIDCOLL_MPICH_INCLUDE AND GRIDCOLL_MPICH_LIB)
    set(GRIDCOLL_HAVE_MPICH ON)
    add_library(gridcoll_mpich_flags INTERFACE)
    target_include_directories(gridcoll_mpich_flags BEFORE INTERFACE ${GRIDCOLL_MPICH_INCLUDE})
    target_link_libraries(gridcoll_mpich_flags INTERFACE ${GRIDCOLL_MPICH_LIB})
    # MPI 4 (sessions, persistent collectives: the test program pmpi_mpi4) from MPICH 4.0
    file(STRINGS ${GRIDCOLL_MPICH_INCLUDE}/mpi.h GRIDCOLL_MPICH_VERSION_LINE REGEX "^#define MPI_VERSION +[0-9]+")
    string(REGEX MATCH "[0-9]+$" GRIDCOLL_MPICH_MPI_VERSION "${GRIDCOLL_MPICH_VERSION_LINE}")
    set(GRIDCOLL_MPICH_MPI4 OFF)
    if(GRIDCOLL_MPICH_MPI_VERSION GREATER_EQUAL 4)
      set(GRIDCOLL_MPICH_MPI4 ON)
    endif()
  else()
    message(STATUS "MPICH not found: no PMPI library for MPICH programs (apt-get install libmpich-dev mpich)")
  endif()
endif()

if(GRIDCOLL_WITH_SMPI)
  find_program(GRIDCOLL_SMPIRUN smpirun)
  find_path(GRIDCOLL_SMPI_INCLUDE smpi/smpi.h)
  find_library(GRIDCOLL_SIMGRID_LIB simgrid)
  if(GRIDCOLL_SMPIRUN AND GRIDCOLL_SMPI_INCLUDE AND GRIDCOLL_SIMGRID_LIB)
    set(GRIDCOLL_HAVE_SMPI ON)
    add_library(gridcoll_smpi_flags INTERFACE)
    # SMPI's own mpi.h comes before any other; smpi_helpers.h reroutes sleep/time calls.
    target_include_directories(gridcoll_smpi_flags INTERFACE ${GRIDCOLL_SMPI_INCLUDE}/smpi ${GRIDCOLL_SMPI_INCLUDE})
    target_compile_options(gridcoll_smpi_flags INTERFACE -include smpi/smpi_helpers.h)
    target_compile_definitions(gridcoll_smpi_flags INTERFACE GRIDCOLL_SMPI=1)
    target_link_libraries(gridcoll_smpi_flags INTERFACE ${GRIDCOLL_SIMGRID_LIB})
    target_link_options(gridcoll_smpi_flags INTERFACE -Wl,-z,defs)
  else()
    message(WARNING "SimGrid SMPI not found: the SMPI backend is off (apt-get install libsimgrid-dev simgrid)")
  endif()
endif()
