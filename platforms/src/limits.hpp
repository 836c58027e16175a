// Private: size limits of a platform description, so that a typo ("nodes = 320000000") or a
// garbled file is an error rather than an exhausted memory. Documented in FORMAT.md.
#pragma once

namespace gridcoll::platform::detail {

constexpr int kMaxHosts = 1 << 20;        // nodes in the whole platform, after count expansion
constexpr int kMaxZones = 1 << 16;        // zones in the whole platform, after count expansion
constexpr int kMaxCores = 1 << 16;        // cores per node
constexpr int kMaxRanks = 1 << 24;        // placed ranks
constexpr int kMaxDepth = 32;             // zone nesting
constexpr long kMaxFileBytes = 64 << 20;  // a description or a placement file

}  // namespace gridcoll::platform::detail
