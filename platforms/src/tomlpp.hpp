// Private: toml++ (header only), included by the loader only through this file.
//
// Its internal assertions are turned off: toml++ 3.3.0's table-header parser calls parse_key()
// on a character that cannot start a key (e.g. "[" followed by a newline, or "[[["), which
// aborts on an assertion in builds without NDEBUG instead of reporting the parse error it reports
// otherwise (found by tests/platforms/test_broken_files.cpp; upstream: marzer/tomlplusplus pull
// request 301). With GCC, release builds are unaffected (toml++'s "assume" is a no-op there).
#pragma once

#ifndef TOML_ASSERT
#define TOML_ASSERT(expr) static_assert(true)
#endif
#include <toml++/toml.h>
