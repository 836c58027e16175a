// gridcoll emulate up|plan|status|check|run|down: the emulated WAN testbed (emulator/testbed).
//
//   up PLATFORM [--name N]       build the testbed of a description and check its fidelity
//   plan PLATFORM                print the commands `up` would run, run nothing
//   status [NAME]                testbeds on this machine and their health
//   check NAME                   measure every path class against the description
//   run NAME|PLATFORM -- CMD     mpirun CMD across the testbed (a PLATFORM: up, run, down)
//   bench NAME|PLATFORM [...]    a batch through the emulated backend (gridcoll-bench, rows)
//   down NAME | --all            remove a testbed (--all: every testbed and any leftovers)
//
// SIGINT / SIGTERM during up / run remove what was created; a testbed left by a killed run is
// removed by the next `up` or by `down --all`.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "batch_options.hpp"
#include "commands.hpp"
#include "csv_table.hpp"
#include "emulated_backend.hpp"
#include "gridcoll/error.hpp"
#include "gridcoll/platform.hpp"
#include "testbed.hpp"
#include "testbed_commands.hpp"

namespace gridcoll::cli {

namespace {

namespace em = gridcoll::emulate;

struct EmulateArgs {
    std::string platform, name, shaper = "auto", native_delay = "50us", delayline;
    bool no_check = false, dry_run = false, all = false, no_yield = false, realtime = false;
    int ranks = 0, pings = 50, loss_packets = 2000;
    double transfer_s = 4;
    std::vector<std::string> command;
    std::vector<std::string> mca;  // KEY VALUE pairs for mpirun
    BatchOptions batch;            // bench
    std::string format = "csv", bench;
};

void log_line(const std::string& s) { std::fprintf(stderr, "gridcoll emulate: %s\n", s.c_str()); }

em::TestbedOptions testbed_options(const EmulateArgs& a) {
    em::TestbedOptions o;
    o.name = a.name;
    o.shaper = a.shaper;
    o.native_delay_s = platform::parse_time(a.native_delay);
    o.delayline = a.delayline;
    o.realtime = a.realtime;
    return o;
}

// Prints the fidelity table; 0 when every measurement is within tolerance, else 1.
int run_check(const em::Testbed& tb, const EmulateArgs& a) {
    em::CheckOptions co;
    co.pings = a.pings;
    co.loss_packets = a.loss_packets;
    co.transfer_s = a.transfer_s;
    const auto rows = tb.check(co, log_line);
    std::printf("%s", em::format_check_table(rows).c_str());
    int failed = 0;
    for (const auto& r : rows) failed += !r.pass;
    std::printf("fidelity: %zu of %zu measurements within tolerance\n", rows.size() - static_cast<std::size_t>(failed), rows.size());
    std::fflush(stdout);
    return failed == 0 ? 0 : 1;
}

int cmd_up(const EmulateArgs& a) {
    auto tb = em::Testbed::up(a.platform, testbed_options(a), true, log_line);
    try {
        if (!a.no_check && run_check(*tb, a) != 0) {
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

int cmd_plan(const EmulateArgs& a) {
    const em::TestbedPlan plan = em::Testbed::plan_only(a.platform, testbed_options(a));
    std::fputs(em::summary(plan).c_str(), stderr);
    em::CommandOptions copt;
    copt.delayline = em::find_delayline(a.delayline);
    const em::UpScript s = em::up_commands(plan, copt);
    std::printf("# set-up\n");
    for (const auto& c : s.setup) std::printf("%s\n", c.text().c_str());
    std::printf("# delay lines (started in the background, each waited for)\n");
    for (const auto& d : s.daemons) std::printf("%s\n", em::Command{d.argv}.text().c_str());
    std::printf("# routes\n");
    for (const auto& c : s.routes) std::printf("%s\n", c.text().c_str());
    std::printf("# down\n");
    for (const auto& c : em::down_commands(plan)) std::printf("%s\n", c.text().c_str());
    return 0;
}

int cmd_status(const EmulateArgs& a) {
    const auto all = em::list_testbeds(em::default_state_root());
    int shown = 0;
    for (const auto& t : all) {
        if (!a.name.empty() && t.name != a.name) continue;
        ++shown;
        const std::string h = t.status == "unreadable" ? "state file unreadable" : em::health(t);
        std::printf("%-20s slot %d  %-9s  %zu namespaces, %zu delay lines  %s  [%s]\n", t.name.c_str(), t.slot,
                    t.status.c_str(), t.namespaces.size(), t.daemons.size(), t.platform_file.c_str(),
                    h.empty() ? "healthy" : h.c_str());
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

em::MpiOptions mpi_options(const EmulateArgs& a) {
    if (a.mca.size() % 2 != 0) throw Error("--mca takes a KEY and a VALUE, e.g. --mca btl_tcp_eager_limit 4259840");
    em::MpiOptions mo;
    mo.ranks = a.ranks;
    mo.yield_when_idle = !a.no_yield;
    for (std::size_t i = 0; i + 1 < a.mca.size(); i += 2) mo.extra_mca.insert(mo.extra_mca.end(), {"--mca", a.mca[i], a.mca[i + 1]});
    return mo;
}

// `emulate run|bench X`: X is a description (a one-off testbed) or the name of one that is up.
bool one_off(const EmulateArgs& a) { return a.platform.size() > 5 && a.platform.substr(a.platform.size() - 5) == ".toml"; }

// A testbed that is up (by name), or a one-off one from a description, removed when the
// returned object goes (also on errors) and only used when its fidelity check passes.
std::unique_ptr<em::Testbed> testbed_for(const EmulateArgs& a) {
    em::require_privileges();
    auto tb = one_off(a) ? em::Testbed::up(a.platform, testbed_options(a), false, log_line) : em::Testbed::open(a.platform);
    if (one_off(a) && !a.no_check && run_check(*tb, a) != 0) throw Error("fidelity check failed: not running the command");
    return tb;
}

int cmd_bench(const EmulateArgs& a) {
    const em::MpiOptions mo = mpi_options(a);
    auto tb = testbed_for(a);
    const int ranks = static_cast<int>(platform::place_ranks(tb->platform(), a.ranks).size());
    const Batch batch = a.batch.make(ranks, std::make_shared<const Topology>(platform::topology(tb->platform(), ranks)), true);
    em::EmulatedBackend backend(*tb, mo, a.bench);
    backend.check(batch);
    log_line("running " + std::to_string(ranks) + " ranks across testbed '" + tb->name() + "'");
    RowPrinter print(a.format == "table");
    backend.run(batch, [&](const ResultRow& row) { print(row); });
    return print.finish();
}

int cmd_run(const EmulateArgs& a) {
    const em::MpiOptions mo = mpi_options(a);
    auto tb = testbed_for(a);
    log_line("running " + std::to_string(platform::place_ranks(tb->platform(), a.ranks).size()) + " ranks across testbed '" +
             tb->name() + "'");
    const int rc = tb->run(mo, a.command);
    if (one_off(a)) log_line("removing testbed '" + tb->name() + "'");
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

}  // namespace

Runner add_emulate(CLI::App& app) {
    auto a = std::make_shared<EmulateArgs>();
    app.require_subcommand(1);
    auto platform_opts = [&](CLI::App* s) {
        s->add_option("--shaper", a->shaper, "how delay, jitter and loss are shaped: auto (netem if the kernel has it, "
                                             "else the delay line), netem, delayline")
            ->check(CLI::IsMember({"auto", "netem", "delayline"}));
        s->add_option("--native-delay", a->native_delay,
                      "delays up to this are left to the kernel's own latency (not shaped)")->capture_default_str();
        s->add_option("--delayline", a->delayline, "path of gridcoll-delayline (default: next to gridcoll)");
        s->add_flag("--realtime", a->realtime, "run delay lines with SCHED_FIFO priority 10 instead of nice -10");
    };
    auto check_opts = [&](CLI::App* s) {
        s->add_option("--pings", a->pings, "round-trip samples per path class")->capture_default_str();
        s->add_option("--loss-packets", a->loss_packets, "pings sent to measure a lossy path")->capture_default_str();
        s->add_option("--transfer", a->transfer_s, "seconds of bulk transfer per path class")->capture_default_str();
    };
    auto* up_cmd = app.add_subcommand("up", "build the testbed of a platform description, then check its fidelity");
    up_cmd->add_option("platform", a->platform, "platform description (.toml)")->required()->check(CLI::ExistingFile);
    up_cmd->add_option("--name", a->name, "testbed name (default: the platform's name)");
    up_cmd->add_flag("--no-check", a->no_check, "skip the fidelity check");
    platform_opts(up_cmd);
    check_opts(up_cmd);
    auto* plan_cmd = app.add_subcommand("plan", "print the ip/tc commands `up` would run (runs nothing)");
    plan_cmd->add_option("platform", a->platform, "platform description (.toml)")->required()->check(CLI::ExistingFile);
    plan_cmd->add_option("--name", a->name, "testbed name (default: the platform's name)");
    platform_opts(plan_cmd);
    auto* status_cmd = app.add_subcommand("status", "list the testbeds on this machine and their health");
    status_cmd->add_option("name", a->name, "only this testbed");
    auto* check_cmd = app.add_subcommand("check", "measure a testbed's paths against its description");
    check_cmd->add_option("name", a->name, "testbed name")->required();
    check_opts(check_cmd);
    auto* run_cmd = app.add_subcommand("run", "run an MPI program across a testbed (a .toml: up, run, down)");
    run_cmd->add_option("testbed", a->platform, "testbed name, or a platform description (.toml) for a one-off testbed")
        ->required();
    run_cmd->add_option("-n,--ranks", a->ranks, "number of ranks (default: the description's placement)");
    run_cmd->add_option("--name", a->name, "name of a one-off testbed");
    run_cmd->add_flag("--no-check", a->no_check, "one-off testbed: skip the fidelity check");
    run_cmd->add_flag("--no-yield", a->no_yield, "let Open MPI busy-poll (mpi_yield_when_idle 0)");
    run_cmd->add_option("--mca", a->mca, "another Open MPI parameter for mpirun: --mca KEY VALUE (repeatable), "
                                         "e.g. --mca btl_tcp_eager_limit 4259840")
        ->type_size(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    run_cmd->add_option("command", a->command, "the command, after --")->required();
    platform_opts(run_cmd);
    check_opts(run_cmd);
    auto* bench_cmd = app.add_subcommand("bench", "time and verify collectives across a testbed (a .toml: up, bench, down)");
    bench_cmd->add_option("testbed", a->platform, "testbed name, or a platform description (.toml) for a one-off testbed")
        ->required();
    bench_cmd->add_option("-n,--ranks", a->ranks, "number of ranks (default: the description's placement)");
    bench_cmd->add_option("--name", a->name, "name of a one-off testbed");
    bench_cmd->add_flag("--no-check", a->no_check, "one-off testbed: skip the fidelity check");
    bench_cmd->add_flag("--no-yield", a->no_yield, "let Open MPI busy-poll (mpi_yield_when_idle 0)");
    bench_cmd->add_option("--mca", a->mca, "another Open MPI parameter for mpirun: --mca KEY VALUE (repeatable)")
        ->type_size(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    add_batch_options(*bench_cmd, a->batch, 5);
    bench_cmd->add_option("-f,--format", a->format, "csv or table")->capture_default_str()->check(CLI::IsMember({"csv", "table"}));
    bench_cmd->add_option("--bench", a->bench, "path of gridcoll-bench (default: next to gridcoll)");
    platform_opts(bench_cmd);
    check_opts(bench_cmd);
    auto* down_cmd = app.add_subcommand("down", "remove a testbed, or --all of them and any leftovers");
    down_cmd->add_option("name", a->name, "testbed name");
    down_cmd->add_flag("--all", a->all, "every testbed and anything left by killed runs");
    return [a, up_cmd, plan_cmd, status_cmd, check_cmd, run_cmd, bench_cmd, down_cmd]() -> int {
        if (up_cmd->parsed()) return cmd_up(*a);
        if (plan_cmd->parsed()) return cmd_plan(*a);
        if (status_cmd->parsed()) return cmd_status(*a);
        if (check_cmd->parsed()) return cmd_check(*a);
        if (run_cmd->parsed()) return cmd_run(*a);
        if (bench_cmd->parsed()) return cmd_bench(*a);
        if (down_cmd->parsed()) return cmd_down(*a);
        return 2;
    };
}

}  // namespace gridcoll::cli
