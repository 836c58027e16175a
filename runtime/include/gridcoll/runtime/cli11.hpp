// CLI11 for the runtime's programs. Under SMPI, smpi_helpers.h (force-included into every
// source) turns exit(x) into a macro, which breaks CLI::App::exit: it goes first.
#pragma once

#ifdef GRIDCOLL_SMPI
#undef exit
#endif
#include <CLI/CLI.hpp>
