// Running a child program and reading its standard output line by line.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gridcoll::cli {

// Runs argv[0] (searched in PATH) with its stdout piped to `on_line`, one call per line;
// stderr passes through. Returns the child's exit status (128 + signal if it was killed).
// SIGINT/SIGTERM received meanwhile are forwarded to the child.
int run_process(const std::vector<std::string>& argv, const std::function<void(const std::string&)>& on_line);

// Directory of the running executable (to find sibling programs such as gridcoll-bench-smpi).
std::string self_dir();

}  // namespace gridcoll::cli
