#include "gridcoll/runtime/dilation.hpp"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gridcoll::mpi {

namespace {

double read_dilation() {
    const char* v = std::getenv("GRIDCOLL_DILATION");
    if (v == nullptr || *v == '\0') return 1;
    char* end = nullptr;
    const double k = std::strtod(v, &end);
    if (end == v || *end != '\0' || !std::isfinite(k) || k < 1) {
        std::fprintf(stderr, "gridcoll: GRIDCOLL_DILATION='%s': expected a time dilation factor >= 1\n", v);
        std::exit(2);
    }
    return k;
}

}  // namespace

double time_dilation() {
    static const double k = read_dilation();
    return k;
}

double undilated_wtime() { return PMPI_Wtime() / time_dilation(); }

}  // namespace gridcoll::mpi
