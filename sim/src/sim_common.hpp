// What the event simulator's parts share: the "no index" value.
// Internal to the event simulator (sim/src/).
#pragma once

#include <cstdint>

namespace gridcoll::sim::detail {

inline constexpr std::uint32_t kNone = 0xffffffffu;

}  // namespace gridcoll::sim::detail
