// gridcoll — design, check and simulate collective operations for clusters of clusters.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <string>

#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"

namespace {

// The number of words after the first `--` of the command line (0 without one).
std::size_t words_after_separator(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--") return static_cast<std::size_t>(argc - i - 1);
    return 0;
}

// `status`, unless what went to standard output could not all be written (a full disk, a
// closed pipe): then an error.
int flushed(int status) {
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return status;
    std::fprintf(stderr, "gridcoll: error: cannot write the standard output: %s\n", std::strerror(errno));
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"gridcoll: topology-aware collective communication — schedules, simulation, emulation"};
    app.require_subcommand(1);
    std::map<CLI::App*, gridcoll::cli::Runner> runners;
    auto add = [&](const char* name, const char* help, gridcoll::cli::Runner (*fn)(CLI::App&)) {
        CLI::App* sub = app.add_subcommand(name, help);
        runners[sub] = fn(*sub);
    };
    add("algorithms", "list the registered algorithms", gridcoll::cli::add_algorithms);
    add("check", "prove an algorithm correct for a communicator shape (no MPI needed)", gridcoll::cli::add_check);
    add("schedule", "print the schedule one rank runs", gridcoll::cli::add_schedule);
    add("platform", "show, validate or convert a platform description (xml, hosts, ranks)", gridcoll::cli::add_platform);
    add("params", "measure model parameters on a platform (SMPI), or show a parameter file", gridcoll::cli::add_params);
    add("predict", "closed-form prediction (Hockney, LogGP, PLogP) of an algorithm", gridcoll::cli::add_predict);
    add("optimize", "P-LogP optimiser: segment size and tree degrees for a broadcast (paper 000)", gridcoll::cli::add_optimize);
    add("decide", "decision functions per model / measured, penalties, rules files (paper 002 sec. 6.3)", gridcoll::cli::add_decide);
    add("discover", "find a platform's Topology by timing round trips under SMPI (ECO, every level)", gridcoll::cli::add_discover);
    add("validate", "the validation harness: a spec's sweep over every backend, then an HTML report (main job)",
        gridcoll::cli::add_validate);
    add("simulate", "a batch on a simulated platform: gridcoll-bench under SimGrid SMPI, or the event simulator", gridcoll::cli::add_simulate);
    add("smpirun", "run an MPI program (built by gridcoll-smpicc / -smpif90) under SimGrid SMPI on a platform",
        gridcoll::cli::add_smpirun);
#ifdef GRIDCOLL_HAVE_EMULATOR
    CLI::App* emulate = app.add_subcommand(
        "emulate", "emulated WAN testbed: up, plan, status, check, run / bench (Open MPI across it), down");
    runners[emulate] = gridcoll::cli::add_emulate(*emulate, words_after_separator(argc, argv));
#endif
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
        known = known || (argc > 1 && sub->get_name() == argv[1]);
    }
    if (argc > 1 && argv[1][0] != '-' && !known) {
        std::fprintf(stderr, "gridcoll: error: no command '%s' (commands: %s; gridcoll --help)\n", argv[1], names.c_str());
        return 2;
    }
    try {
        app.parse(argc, argv);
        for (auto& [sub, run] : runners)
            if (sub->parsed()) return flushed(run());
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "gridcoll: error: out of memory (the schedules, buffers or results asked for do not fit: "
                             "fewer ranks or sizes, or larger segments)\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gridcoll: error: %s\n", e.what());
        return 2;
    }
    return 0;
}
