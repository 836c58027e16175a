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

// The platform a subcommand runs on, the same on every subcommand: -p/--platform FILE, and, where
// `positional_too`, FILE alone.
CLI::Option* add_platform_option(CLI::App& app, std::string& platform, const std::string& help, bool positional_too);
// The same for subcommands that take several platforms: every -p FILE and every FILE, in order.
void add_platform_files(CLI::App& app, std::vector<std::string>& files, const std::string& help);

// Runs a batch on an opened backend and prints its rows (csv or table); the exit status.
int run_and_print(backends::OpenedBackend& opened, const BatchOptions& batch, const std::string& format);

}  // namespace gridcoll::cli
