// gridcoll smpirun: an MPI program run under SimGrid's SMPI on a platform, as `emulate run` runs
// one across the testbed. The program is a shared object built by build/bin/gridcoll-smpicc,
// -smpicxx or -smpif90 (the PMPI library linked in; SimGrid's own smpicc builds one without it).
// The description's SimGrid XML, hostfile and rank map go to a scratch directory that goes with
// the run; GRIDCOLL_TOPOLOGY names the rank map unless it is set already; smpirun gets gridcoll's
// settings (the ideal network model unless --network-model smpi; no computation simulated unless
// --cfg smpi/simulate-computation:yes), and the program's exit status is the command's.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/backends/smpi_settings.hpp"
#include "gridcoll/platforms/sim_platform.hpp"
#include "gridcoll/sim/smpi_backend.hpp"
#include "gridcoll/system/process.hpp"

namespace gridcoll::cli {

namespace {

struct SmpirunOptions {
    std::string platform;
    std::string hostfile;
    int ranks = 0;
    backends::SettingValues settings;
    std::vector<std::string> command;
};

int run(const SmpirunOptions& o) {
    const std::string& program = o.command.front();
    if (!std::filesystem::is_regular_file(program))
        throw Error("smpirun: no program '" + program + "' (an MPI program built as a shared object by gridcoll-smpicc, "
                    "gridcoll-smpicxx or gridcoll-smpif90)");
    const platform::SimPlatform plat = platform::load_sim_platform(o.platform, o.hostfile, o.ranks);
    const sim::SmpiLaunch launch(plat, backends::smpi_settings(o.settings));
    std::vector<std::string> argv = launch.command(program);
    argv.insert(argv.end(), o.command.begin() + 1, o.command.end());
    const char* topology = std::getenv("GRIDCOLL_TOPOLOGY");
    if ((topology == nullptr || *topology == '\0') && !launch.rank_map().empty())
        argv.insert(argv.begin() + 1, "GRIDCOLL_TOPOLOGY=" + launch.rank_map());  // after `env`
    if (launch.settings().verbose) sim::show_command(argv);
    return sys::run_foreground(argv);
}

}  // namespace

Runner add_smpirun(CLI::App& app) {
    auto o = std::make_shared<SmpirunOptions>();
    add_platform_option(app, o->platform, "platform description (.toml) or SimGrid XML platform (.xml)", false)->required();
    app.add_option("-H,--hostfile", o->hostfile, "for XML: hostfile, one host per line or host:N for N ranks");
    app.add_option("-n,--ranks", o->ranks, "number of MPI ranks (default: the description's placement)")
        ->check(kPositive);
    add_backend_settings(app, o->settings, {"smpi"}, backends::kSmpiRunKeys);
    app.add_option("command", o->command, "the program (a shared object) and its arguments, after --")->required();
    return [o] { return run(*o); };
}

}  // namespace gridcoll::cli
