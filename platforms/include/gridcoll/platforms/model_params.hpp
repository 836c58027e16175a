// Model parameters for the predictors (closed forms, event simulator): a ParamSet file (measured or fitted, see algorithms/model/
// README.md) or a platform description, whose level links give PLogP parameters
// (L = latency, g(m) = o + m / bandwidth; plus the LogGP and Hockney parameters derived from them).
#pragma once

#include <string>

#include "gridcoll/algorithms/model/params.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::platform {

model::ParamSet load_model_params(const std::string& path);

// PLogP (and the derived) parameters of a Topology's level links and pair links, as for a
// description (a level without a link gets none); `origin` says where they come from.
model::ParamSet params_from_topology(const Topology& t, const std::string& origin);

// The level named `level` (or with that index); with an empty `level`, the only level, or the
// widest level that has parameters when there are several. Throws Error listing the levels.
const model::LevelParams& select_level(const model::ParamSet& p, const std::string& level);

}  // namespace gridcoll::platform
