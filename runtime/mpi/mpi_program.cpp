#include "gridcoll/runtime/mpi_program.hpp"

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

namespace gridcoll {

int run_mpi_program(int argc, char** argv, const std::string& program, const std::string& description,
                    const std::function<void(CLI::App&)>& options, const std::function<int(int, int)>& body) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CLI::App app{program + " (" + kMpiFlavour + "): " + description};
    options(app);
    int status = 0;
    try {
        app.parse(argc, argv);
        status = body(rank, size);
    } catch (const CLI::ParseError& e) {
        status = rank == 0 ? app.exit(e) : e.get_exit_code();
    } catch (const std::bad_alloc&) {  // any rank: the one that ran out says so
        std::fprintf(stderr, "%s: error: rank %d: out of memory (the buffers or schedules asked for do not fit: "
                             "smaller sizes or fewer ranks)\n", program.c_str(), rank);
        status = 2;
    } catch (const std::length_error&) {
        std::fprintf(stderr, "%s: error: rank %d: a buffer or schedule larger than this machine can address\n",
                     program.c_str(), rank);
        status = 2;
    } catch (const std::exception& e) {
        if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
        status = 2;
    }
    MPI_Finalize();
    return status;
}

}  // namespace gridcoll
