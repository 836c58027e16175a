// gridcoll emulate up|plan|status|check|run|down: the emulated WAN testbed (emulator/testbed).
//
//   up PLATFORM [--name N]       build the testbed of a description and check its fidelity
//   plan PLATFORM                print the commands `up` would run, run nothing
//   status [NAME]                testbeds on this machine and their health
//   check NAME                   measure every path class against the description
//   run NAME|PLATFORM -- CMD     mpirun CMD across the testbed (a PLATFORM: up, run, down)
//   bench NAME|PLATFORM [...]    a batch through the emulated backend (gridcoll-bench, rows)
//   down NAME | --all            remove a testbed (--all: every testbed and any leftovers)
//   fault NAME --link A:B | --site S | --schedule FILE [--at T] [--for D] | --list
//                                take WAN links down for a while, now or on a schedule
//
// SIGINT / SIGTERM during up / run remove what was created; a testbed left by a killed run is
// removed by the next `up` or by `down --all`.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backend_options.hpp"
#include "gridcoll/backends/testbed_settings.hpp"
#include "gridcoll/runtime/bench_options.hpp"
#include "commands.hpp"
#include "csv_table.hpp"
#include "gridcoll/emulator/emulated_backend.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/emulator/testbed.hpp"
#include "gridcoll/emulator/testbed_dilation.hpp"
#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_faults.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"

namespace gridcoll::cli {

namespace {

namespace em = gridcoll::emulate;

struct EmulateArgs {
    std::string platform, name;
    std::string first_positional;  // run, bench: the testbed, or with -p the command's first word
    std::size_t after_separator = 0;  // words after the command line's `--`
    bool dry_run = false, all = false;
    int ranks = 0;
    std::vector<std::string> command;
    backends::SettingValues settings;  // the emulated backend's (testbed, check, mpirun)
    BatchOptions batch;                // bench
    std::string format = "csv";
    std::string link, site, schedule, at = "0s", duration = "5s";  // fault
    bool list = false;
    int part = -1, slot = -1;  // up: one machine's part, for a controller over ssh
};

void log_line(const std::string& s) { std::fprintf(stderr, "gridcoll emulate: %s\n", s.c_str()); }

em::TestbedOptions testbed_options(const EmulateArgs& a) {
    em::TestbedOptions o = backends::testbed_options(a.settings, a.name);
    o.part = a.part;
    o.slot = a.slot;
    return o;
}

bool check_wanted(const EmulateArgs& a) {
    auto it = a.settings.find("check");
    return it == a.settings.end() || it->second != std::vector<std::string>{"false"};
}

// Prints the fidelity table; 0 when every measurement is within tolerance, else 1.
int run_check(const em::Testbed& tb, const EmulateArgs& a) {
    const em::CheckOptions co = backends::check_options(a.settings);
    const auto rows = tb.check(co, log_line);
    std::printf("%s", em::format_check_table(rows).c_str());
    int failed = 0;
    for (const auto& r : rows) failed += !r.pass;
    std::printf("fidelity: %zu of %zu measurements within tolerance (time dilation %s%s)\n",
                rows.size() - static_cast<std::size_t>(failed), rows.size(), em::format_dilation(tb.plan().dilation).c_str(),
                tb.plan().dilation != 1 ? ": measured in dilated time, against the dilated links" : "");
    std::fflush(stdout);
    return failed == 0 ? 0 : 1;
}

int cmd_up(const EmulateArgs& a) {
    if ((a.part >= 0) != (a.slot >= 0)) throw Error("emulate up: --part and --slot go together (a controller's request)");
    auto tb = em::Testbed::up(a.platform, testbed_options(a), true, log_line);
    if (a.part >= 0) {
        std::printf("machine %d's part of testbed '%s' is up\n", a.part, tb->name().c_str());
        return 0;
    }
    try {
        if (check_wanted(a) && run_check(*tb, a) != 0) {
            log_line("fidelity check failed: the testbed stays up for inspection (gridcoll emulate down " + tb->name() + ")");
            return 1;
        }
        em::throw_if_interrupted();
    } catch (...) {
        if (em::interrupted()) tb->down(log_line);
        throw;
    }
    std::printf("testbed '%s' is up: gridcoll emulate run %s -- COMMAND; gridcoll emulate down %s\n", tb->name().c_str(),
                tb->name().c_str(), tb->name().c_str());
    return 0;
}

void print_script(const em::UpScript& s, const std::vector<em::Command>& down) {
    std::printf("# set-up\n");
    for (const auto& c : s.setup) std::printf("%s\n", c.text().c_str());
    std::printf("# delay lines (started in the background, each waited for)\n");
    for (const auto& d : s.daemons) std::printf("%s\n", em::Command{d.argv}.text().c_str());
    if (!s.hosts.empty()) std::printf("# containerised hosts (each an init, started in the background, waited for)\n");
    for (const auto& d : s.hosts) std::printf("%s\n", em::Command{d.argv}.text().c_str());
    std::printf("# routes\n");
    for (const auto& c : s.routes) std::printf("%s\n", c.text().c_str());
    std::printf("# down\n");
    for (const auto& c : down) std::printf("%s\n", c.text().c_str());
}

int cmd_plan(const EmulateArgs& a) {
    const em::TestbedPlan plan = em::Testbed::plan_only(a.platform, testbed_options(a));
    std::fputs(em::summary(plan).c_str(), stderr);
    em::CommandOptions copt;
    copt.delayline = em::find_delayline(testbed_options(a).delayline);
    const em::UpScript s = em::up_commands(plan, copt);
    if (!plan.spread()) {
        print_script(s, em::down_commands(plan));
        return 0;
    }
    for (std::size_t k = 0; k < plan.machines.size(); ++k) {
        const em::Machine& m = plan.machines[k];
        std::printf("## machine %zu: %s (%s%s)\n", k, m.name.c_str(), m.address.c_str(),
                    m.underlay_ns.empty() ? (m.local ? ", this machine" : ", over ssh") : ", a stand-in namespace");
        print_script(em::part_of(s, static_cast<int>(k)), em::part_of(em::down_commands(plan), static_cast<int>(k)));
    }
    return 0;
}

int cmd_status(const EmulateArgs& a) {
    const auto all = em::list_testbeds(em::default_state_root());
    int shown = 0;
    for (const auto& t : all) {
        if (!a.name.empty() && t.name != a.name) continue;
        ++shown;
        const std::string h = t.status == "unreadable" ? "state file unreadable" : em::health(t);
        const std::string where = t.machines.empty() ? ""
                                  : t.part >= 0 ? ", part " + std::to_string(t.part) + " of machines " + t.machines
                                                : ", machines " + t.machines;
        std::printf("%-20s slot %d  %-9s  %zu namespaces, %zu delay lines, dilation %s%s  %s  [%s]\n", t.name.c_str(),
                    t.slot, t.status.c_str(), t.namespaces.size(), t.daemons.size(), em::format_dilation(t.dilation).c_str(),
                    where.c_str(), t.platform_file.c_str(), h.empty() ? "healthy" : h.c_str());
    }
    if (shown == 0) {
        if (!a.name.empty()) throw Error("no testbed named '" + a.name + "' is up");
        std::printf("no testbeds are up\n");
    }
    return 0;
}

int cmd_check(const EmulateArgs& a) {
    em::require_privileges();
    return run_check(*em::Testbed::open(a.name), a);
}

backends::Target target_of(const EmulateArgs& a) {
    backends::Target t;
    t.platform = a.platform;
    t.ranks = a.ranks;
    t.log = log_line;
    return t;
}

int cmd_bench(const EmulateArgs& a) {
    if (!a.name.empty() && backends::is_description(a.platform)) throw Error("emulate bench: --name is for `up` and `run`");
    auto opened = backends::open_backend("emulated", a.settings, target_of(a));
    return run_and_print(opened, a.batch, a.format);
}

int cmd_run(const EmulateArgs& a) {
    const em::MpiOptions mo = backends::mpi_options(a.settings, a.ranks);
    auto tb = backends::testbed_for(a.platform, a.settings, check_wanted(a), log_line, a.name);
    log_line("running " + std::to_string(platform::place_ranks(tb->platform(), a.ranks).size()) + " ranks across testbed '" +
             tb->name() + "'");
    const auto t0 = std::chrono::steady_clock::now();
    const int rc = tb->run(mo, a.command);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char line[160];
    const double k = tb->plan().dilation;
    if (k != 1)
        std::snprintf(line, sizeof line, "the run took %.3f s of wall clock, %.3f s of the undilated platform (dilation %s; "
                      "the ranks' GRIDCOLL_DILATION)", took, took / k, em::format_dilation(k).c_str());
    else
        std::snprintf(line, sizeof line, "the run took %.3f s of wall clock", took);
    log_line(line);
    if (backends::is_description(a.platform)) log_line("removing testbed '" + tb->name() + "'");
    return rc;
}

int cmd_down(const EmulateArgs& a) {
    em::require_privileges();
    const std::string root = em::default_state_root();
    if (a.all) {
        const int n = em::remove_leftovers(root, true, log_line);
        std::printf("removed %d testbed(s) and leftover(s)\n", n);
        return 0;
    }
    if (a.name.empty()) throw Error("down: give a testbed NAME or --all");
    const std::string dir = root + "/" + a.name;
    if (!std::filesystem::exists(dir + "/state")) throw Error("no testbed named '" + a.name + "' is up (gridcoll emulate status)");
    em::tear_down(em::read_state(dir), log_line);
    std::printf("testbed '%s' removed\n", a.name.c_str());
    return 0;
}

int cmd_fault(const EmulateArgs& a) {
    em::require_privileges();
    const auto tb = em::Testbed::open(a.name);
    if (a.list) {
        for (const std::string& n : em::fault_target_names(tb->plan())) std::printf("%s\n", n.c_str());
        return 0;
    }
    std::vector<em::ScheduledFault> faults;
    if (!a.schedule.empty()) faults = em::read_fault_schedule(a.schedule);
    for (const std::string& target : {a.link, a.site.empty() ? "" : "site:" + a.site})
        if (!target.empty()) faults.push_back({platform::parse_time(a.at), platform::parse_time(a.duration), target});
    if (faults.empty()) throw Error("fault: give --link A:B, --site S or --schedule FILE (--list names the links)");
    for (const auto& f : faults)
        if (f.for_s <= 0) throw Error("fault: --for must be positive (got " + a.duration + ")");
    em::install_interrupt_handlers();
    em::run_fault_schedule(tb->plan(), faults, log_line);
    return 0;
}

CLI::App* add_fault_command(CLI::App& app, EmulateArgs& a) {
    auto* c = app.add_subcommand("fault", "take WAN links or sites down for a while (now, later, or on a schedule)");
    c->add_option("name", a.name, "testbed name")->required();
    c->add_option("--link", a.link, "the WAN link A:B (its two ends' names; --list shows them)");
    c->add_option("--site", a.site, "every WAN link of this site");
    c->add_option("--at", a.at, "start this long from now")->capture_default_str();
    c->add_option("--for", a.duration, "how long it stays down")->capture_default_str();
    c->add_option("--schedule", a.schedule, "a file of faults, one a line: <at> <duration> <A:B or site:S>")
        ->check(CLI::ExistingFile);
    c->add_flag("--list", a.list, "list the links and sites a fault can name");
    return c;
}

void add_testbed_options(CLI::App* s, EmulateArgs& a) {
    add_backend_settings(*s, a.settings, {"emulated"}, backends::kTestbedKeys);
}

void add_check_options(CLI::App* s, EmulateArgs& a) { add_backend_settings(*s, a.settings, {"emulated"}, backends::kCheckKeys); }

// up, plan: a description, as -p or positional.
CLI::App* add_description_command(CLI::App& app, EmulateArgs& a, const char* name, const char* help) {
    auto* c = app.add_subcommand(name, help);
    add_platform_option(*c, a.platform, "platform description (.toml)", true)->check(CLI::ExistingFile);
    c->add_option("--name", a.name, "testbed name (default: the platform's name)");
    add_testbed_options(c, a);
    return c;
}

// run, bench: the testbed given as -p or as the first positional. With -p, a first positional
// after `--` is the command's first word (`run -p X -- prog args`); one before it, or any for
// bench, which takes no command, names the testbed a second time.
void settle_testbed(EmulateArgs& a, bool run) {
    if (!a.first_positional.empty()) {
        const bool after_separator = a.command.size() + 1 <= a.after_separator;
        if (a.platform.empty())
            a.platform = a.first_positional;
        else if (run && after_separator)
            a.command.insert(a.command.begin(), a.first_positional);
        else
            throw Error(std::string("emulate ") + (run ? "run" : "bench") + ": the testbed is given twice ('-p " +
                        a.platform + "' and '" + a.first_positional + "')" +
                        (run ? "; the command goes after --: emulate run -p TESTBED -- COMMAND" : ""));
    }
    if (run && a.command.empty())
        throw Error("emulate run: give the command to run after -- (emulate run TESTBED -- COMMAND)");
}

// run, bench: a testbed that is up (by name) or a description for a one-off testbed.
CLI::App* add_running_command(CLI::App& app, EmulateArgs& a, const char* name, const char* help) {
    auto* c = app.add_subcommand(name, help);
    // Not add_platform_option's excluding pair: after `-p X --` CLI11 fills this positional
    // with the command's first word (settle_testbed puts it back).
    const std::string what = "testbed name, or a platform description (.toml) for a one-off testbed";
    c->add_option("-p,--platform", a.platform, what);
    c->add_option("file", a.first_positional, what + " (the same as -p FILE)");
    c->add_option("-n,--ranks", a.ranks, "number of ranks (default: the description's placement)")->check(kPositive);
    c->add_option("--name", a.name, "name of a one-off testbed");
    add_backend_settings(*c, a.settings, {"emulated"}, {"check"});
    add_backend_settings(*c, a.settings, {"emulated"}, backends::kMpirunKeys);
    add_testbed_options(c, a);
    add_check_options(c, a);
    return c;
}

}  // namespace

Runner add_emulate(CLI::App& app, std::size_t after_separator) {
    auto a = std::make_shared<EmulateArgs>();
    a->after_separator = after_separator;
    app.require_subcommand(1);
    auto* up_cmd = add_description_command(app, *a, "up", "build the testbed of a platform description, then check its fidelity");
    add_backend_settings(*up_cmd, a->settings, {"emulated"}, {"check"});
    add_check_options(up_cmd, *a);
    up_cmd->add_option("--part", a->part, "(run by a controller over ssh) bring up only this machine's part of a testbed "
                                          "over --machines A,B,...")->check(CLI::Range(0, em::max_machines - 1));
    up_cmd->add_option("--slot", a->slot, "(with --part) the controller's testbed slot")->check(CLI::Range(0, em::max_slots - 1));
    auto* plan_cmd = add_description_command(app, *a, "plan", "print the ip/tc commands `up` would run (runs nothing)");
    auto* status_cmd = app.add_subcommand("status", "list the testbeds on this machine and their health");
    status_cmd->add_option("name", a->name, "only this testbed");
    auto* check_cmd = app.add_subcommand("check", "measure a testbed's paths against its description");
    check_cmd->add_option("name", a->name, "testbed name")->required();
    add_check_options(check_cmd, *a);
    auto* run_cmd = add_running_command(app, *a, "run", "run an MPI program across a testbed (a .toml: up, run, down)");
    run_cmd->add_option("command", a->command, "the command, after -- (required)");
    auto* bench_cmd = add_running_command(app, *a, "bench", "time and verify collectives across a testbed (a .toml: up, bench, down)");
    launch::add_batch_options(*bench_cmd, a->batch, 5);
    bench_cmd->add_option("-f,--format", a->format, "csv or table")->capture_default_str()->check(CLI::IsMember({"csv", "table"}));
    add_backend_settings(*bench_cmd, a->settings, {"emulated"}, {"bench"});
    auto* down_cmd = app.add_subcommand("down", "remove a testbed, or --all of them and any leftovers");
    down_cmd->add_option("name", a->name, "testbed name");
    down_cmd->add_flag("--all", a->all, "every testbed and anything left by killed runs");
    auto* fault_cmd = add_fault_command(app, *a);
    return [a, up_cmd, plan_cmd, status_cmd, check_cmd, run_cmd, bench_cmd, down_cmd, fault_cmd]() -> int {
        if (bench_cmd->parsed()) launch::note_inapplicable(*bench_cmd, a->batch);
        if (run_cmd->parsed() || bench_cmd->parsed()) settle_testbed(*a, run_cmd->parsed());
        if ((up_cmd->parsed() || plan_cmd->parsed() || run_cmd->parsed() || bench_cmd->parsed()) && a->platform.empty())
            throw Error("emulate: give a platform description or a testbed's name");
        if (up_cmd->parsed()) return cmd_up(*a);
        if (plan_cmd->parsed()) return cmd_plan(*a);
        if (status_cmd->parsed()) return cmd_status(*a);
        if (check_cmd->parsed()) return cmd_check(*a);
        if (run_cmd->parsed()) return cmd_run(*a);
        if (bench_cmd->parsed()) return cmd_bench(*a);
        if (down_cmd->parsed()) return cmd_down(*a);
        if (fault_cmd->parsed()) return cmd_fault(*a);
        return 2;
    };
}

}  // namespace gridcoll::cli
