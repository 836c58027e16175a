// The command line's options for backend settings, declared from the backends' own table
// (gridcoll/backends/backends.hpp): a setting's key is its Python / spec name, its flag the
// option here. Several backends on one subcommand share an option where they share a key.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gridcoll/backends/backends.hpp"

namespace gridcoll::cli {

// Declares the settings of `names` (backends this build has; others are skipped) on `app`,
// values going into `values` when given; `only` limits them to those keys. Options are grouped
// by backend when there are several.
void add_backend_settings(CLI::App& app, backends::SettingValues& values, const std::vector<std::string>& names,
                          const std::vector<std::string>& only = {});

// The platform a subcommand runs on: -p/--platform, and the positional form where a subcommand
// had one. Declares the option on `app`.
CLI::Option* add_platform_option(CLI::App& app, std::string& platform, const std::string& help, bool positional_too);

// Runs a batch on an opened backend and prints its rows (csv or table); the exit status.
int run_and_print(backends::OpenedBackend& opened, const BatchOptions& batch, const std::string& format);

}  // namespace gridcoll::cli
