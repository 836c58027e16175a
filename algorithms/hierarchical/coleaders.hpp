// The co-leaders' rule (coleaders.cpp, coleaders_allgather.cpp): which of its k leaders a site
// meets another site with. Internal to algorithms/.
#pragma once

namespace gridcoll::detail {

// Which of its k leaders site `from` meets site `to` with, d = (to - from) mod C places on: its
// co-leader (d - 1) mod k — so each meets ceil((C - 1) / k) sites at most.
inline int facing(int from, int to, int C, int k) { return ((to - from + C) % C - 1) % k; }

}  // namespace gridcoll::detail
