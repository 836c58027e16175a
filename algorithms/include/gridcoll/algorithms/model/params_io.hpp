// Model parameter files (TOML): read and write a ParamSet (params.hpp) — the Hockney, LogGP and
// PLogP parameters of paper 002 §3 / paper 000 §2.1, one set per network level.
//
// Format (all times in seconds, sizes in bytes, per-byte values in seconds per byte):
//
//   version = 1                  # optional; 1 is the only version
//   origin  = "fitted"           # optional: how the numbers were obtained (measured / fitted / given)
//   gamma   = 1.0e-9             # optional, default 0: reduction compute time per byte (002 §3.2)
//
//   [[level]]                    # one table per network level, in Topology level order
//   name = "lan"                 # required, unique
//
//   [level.plogp]                # optional; all four keys required (paper 000 §2.1)
//   L  = 3.8017e-5               # end-to-end latency
//   os = [[0, 8.0e-6], [65536, 2.1e-4]]   # send overhead os(m): [[bytes, seconds], ...]
//   or = 8.0e-6                  # a single number is a constant function
//   g  = [[0, 8.7e-6], [1024, 2.4e-5], [1048576, 1.57e-2]]   # gap g(m)
//
//   [level.loggp]                # optional; all four keys required (paper 002 §3.1)
//   L = 3.04e-5                  # latency
//   o = 8.15e-6                  # overhead
//   g = 8.683e-6                 # gap per message
//   G = 1.5e-8                   # gap per byte (s/byte)
//
//   [level.hockney]              # optional; both keys required (paper 002 §3.1)
//   alpha = [[0, 4.6e-5]]        # alpha(m), seconds (may be negative: derived alphas can dip below 0)
//   beta  = 1.5e-8               # beta(m), seconds per byte
//
// A point list is [[bytes, value], ...] with bytes >= 0 strictly increasing (at least one
// point); it is evaluated by linear interpolation, constant below the first point and linearly
// extrapolated through the last two (SizeFunction). Every value must be finite and, except
// alpha, >= 0. Unknown keys are errors. g(m) >= os(m), or(m) is not enforced (logp_mpi only
// warns when a measurement violates it).
//
// Every error is a gridcoll::Error "file:line:column: key: what", e.g.
//   "lan.toml:7:9: level[0].plogp.g[1]: sizes must increase strictly (1024 then 512)".
#pragma once

#include <string>

#include "gridcoll/algorithms/model/params.hpp"

namespace gridcoll::model {

// `origin` names the text in error messages (a file name).
ParamSet parse_params(const std::string& toml_text, const std::string& origin);
ParamSet load_params(const std::string& path);

// The TOML text of a parameter set; numbers are written in their shortest exact form, so
// parse_params(to_toml(p)) == p.
std::string to_toml(const ParamSet& p);
// Throws Error when the file cannot be written.
void save_params(const ParamSet& p, const std::string& path);

}  // namespace gridcoll::model
