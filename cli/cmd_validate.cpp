// gridcoll validate [SPEC] [options]: the validation harness (python/gridcoll/validate.py) —
// a spec's sweep through the closed forms, the event simulator, SMPI and (as root) the emulated
// testbed, then the database, CSV and one HTML report. The harness is Python (pandas,
// matplotlib); this command runs it with Debian's interpreter and this build's package, and
// passes every argument on (`gridcoll validate --help` is the harness's help).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::cli {

namespace {

[[noreturn]] void exec_harness(const std::vector<std::string>& args) {
    const std::string pkg = GRIDCOLL_PYTHON_DIR;
    bool built = false;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(pkg + "/gridcoll", ec))
        built = built || e.path().filename().string().rfind("_core.", 0) == 0;
    if (!built)
        throw Error("the Python package is not built in " + pkg + " (needs pybind11-dev; scripts/install-deps.sh, then scripts/build.sh)");
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = pkg + (old && *old ? ":" + std::string(old) : "");
    setenv("PYTHONPATH", path.c_str(), 1);
    std::vector<std::string> argv{GRIDCOLL_PYTHON, "-m", "gridcoll", "validate"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    execv(c[0], c.data());
    throw Error("cannot run " + std::string(GRIDCOLL_PYTHON) + ": " + std::strerror(errno));
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
