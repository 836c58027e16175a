// gridcoll validate [SPEC] [options]: the validation harness (python/gridcoll/validate.py) — a
// spec's sweep through every backend, then the database, CSV and one HTML report. The harness
// is Python (pandas, matplotlib, Dask) and calls the backends in its own process through the
// bindings; this subcommand replaces itself (exec) with the build's gridcoll-validate, so no
// process stays between the user and the harness (docs/ARCHITECTURE.md, "The main job"). Every
// argument passes on (`gridcoll validate --help` is the harness's help).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/system/files.hpp"

namespace gridcoll::cli {

namespace {

[[noreturn]] void exec_harness(const std::vector<std::string>& args) {
    std::string harness;
    try {
        harness = sys::sibling_program("gridcoll-validate");
    } catch (const Error&) {
        throw Error("the validation harness (gridcoll-validate) is not built next to gridcoll: it needs the Python "
                    "bindings (pybind11-dev, python3-dev; scripts/install-deps.sh, then scripts/build.sh)");
    }
    std::vector<std::string> argv{harness};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    execv(c[0], c.data());
    throw Error("cannot run " + harness + ": " + std::strerror(errno));
}

}  // namespace

Runner add_validate(CLI::App& app) {
    app.prefix_command();
    app.set_help_flag();  // --help goes to the harness
    return [&app] {
        exec_harness(app.remaining());
        return 0;
    };
}

}  // namespace gridcoll::cli
