// LevelMap (gridcoll/event_sim.hpp): the per-level cluster ids the simulator looks levels up in.
#include "gridcoll/sim/event_sim.hpp"

#include <string>

namespace gridcoll::sim {

LevelMap LevelMap::regular(int size, std::vector<int> radix) {
    if (size < 1) throw Error("LevelMap::regular: size must be >= 1 (got " + std::to_string(size) + ")");
    if (radix.empty()) throw Error("LevelMap::regular: no levels");
    for (std::size_t l = 0; l < radix.size(); ++l) {
        if (radix[l] < 1)
            throw Error("LevelMap::regular: level " + std::to_string(l) + " has " + std::to_string(radix[l]) +
                        " ranks per cluster");
        if (l > 0 && radix[l - 1] < size && radix[l - 1] % radix[l] != 0)
            throw Error("LevelMap::regular: level " + std::to_string(l) + "'s " + std::to_string(radix[l]) +
                        " ranks per cluster do not divide level " + std::to_string(l - 1) + "'s " +
                        std::to_string(radix[l - 1]));
    }
    LevelMap m;
    m.size_ = size;
    m.levels_ = static_cast<int>(radix.size());
    m.radix_ = std::move(radix);
    return m;
}

}  // namespace gridcoll::sim
