// The hostfile of a placed platform: one host name per line, line i holding rank i's host — the
// format smpirun -hostfile and mpirun --hostfile (one slot per line) read, and the format of a
// placement file (policy = "file"), so a hostfile can be edited and fed back.
#include "gridcoll/platforms/platform.hpp"

namespace gridcoll::platform {

std::string hostfile(const Platform& p, int ranks) {
    std::string out;
    for (const auto& h : place_ranks(p, ranks)) out += h + "\n";
    return out;
}

}  // namespace gridcoll::platform
