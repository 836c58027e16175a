// gridcoll emulate up|plan|status|check|run|down: the emulated WAN testbed (emulator/testbed).
//
//   up PLATFORM [--name N]       build the testbed of a description and check its fidelity
//   plan PLATFORM                print the commands `up` would run, run nothing
//   status [NAME]                testbeds on this machine and their health
//   check NAME                   measure every path class against the description
//   run NAME|PLATFORM -- CMD     mpirun CMD across the testbed (a PLATFORM: up, run, down)
//   down NAME | --all            remove a testbed (--all: every testbed and any leftovers)
//
// SIGINT / SIGTERM during up / run remove what was created; a testbed left by a killed run is
// removed by the next `up` or by `down --all`.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <tuple>
#include <string>
#include <unistd.h>
#include <vector>

#include "commands.hpp"
#include "gridcoll/error.hpp"
#include "gridcoll/platform.hpp"
#include "process.hpp"
#include "testbed_check.hpp"
#include "testbed_commands.hpp"
#include "testbed_mpi.hpp"
#include "proc.hpp"
#include "testbed_plan.hpp"
#include "testbed_runner.hpp"

namespace gridcoll::cli {

namespace {

namespace em = gridcoll::emulate;
namespace fs = std::filesystem;

struct EmulateArgs {
    std::string platform, name, shaper = "auto", native_delay = "50us", delayline;
    bool no_check = false, dry_run = false, all = false, no_yield = false, realtime = false;
    int ranks = 0, pings = 50, loss_packets = 2000;
    double transfer_s = 4;
    std::vector<std::string> command;
    std::vector<std::string> mca;  // KEY VALUE pairs for mpirun
};

void log_line(const std::string& s) { std::fprintf(stderr, "gridcoll emulate: %s\n", s.c_str()); }

std::string find_delayline(const std::string& given) {
    if (!given.empty()) return given;
    const std::string sib = self_dir() + "/gridcoll-delayline";
    if (access(sib.c_str(), X_OK) == 0) return sib;
    return "gridcoll-delayline";
}

em::Plan make(const platform::Platform& p, const std::string& name, int slot, const std::string& shaper,
              double native_delay_s, bool netem) {
    em::PlanOptions po;
    po.name = name;
    po.slot = slot;
    po.shaper = shaper;
    po.native_delay_s = native_delay_s;
    po.netem_available = netem;
    po.state_root = em::default_state_root();
    return em::make_plan(p, po);
}

void print_summary(const em::Plan& plan) {
    int hosts = 0, routers = 0, delaylines = 0;
    for (const auto& n : plan.ns) hosts += n.kind == em::NsKind::Host, routers += n.kind == em::NsKind::Router;
    for (const auto& l : plan.links) delaylines += l.shaper == em::Shaper::DelayLine;
    std::fprintf(stderr,
                 "testbed '%s' (platform %s, slot %d): %d hosts, %d routers, %zu links (%d delay lines), data %s, "
                 "management %s\n",
                 plan.name.c_str(), plan.platform_name.c_str(), plan.slot, hosts, routers, plan.links.size(), delaylines,
                 plan.data_cidr.c_str(), plan.mgmt_cidr.c_str());
    std::fprintf(stderr, "shaping: rate by tbf%s; delay, jitter and loss by %s\n",
                 plan.delay_shaper == "netem" ? "/netem" : (plan.delay_shaper == "delayline" ? "/delay line" : ""),
                 plan.delay_shaper.c_str());
    for (const auto& n : plan.notes) std::fprintf(stderr, "  note: %s\n", n.c_str());
    std::fprintf(stderr, "TCP buffers up to %ld bytes (2 x the largest bandwidth-delay product)\n", plan.tcp_buffer_max);
}

int run_check(const em::Plan& plan, const EmulateArgs& a) {
    em::CheckOptions co;
    co.pings = a.pings;
    co.loss_packets = a.loss_packets;
    co.transfer_s = a.transfer_s;
    const auto rows = em::check_testbed(plan, co, log_line);
    std::printf("%s", em::format_check_table(rows).c_str());
    int failed = 0;
    for (const auto& r : rows) failed += !r.pass;
    std::printf("fidelity: %zu of %zu measurements within tolerance\n", rows.size() - static_cast<std::size_t>(failed), rows.size());
    std::fflush(stdout);
    return failed == 0 ? 0 : 1;
}

// Brings a testbed up; returns its state (status `status`). Throws after cleaning up on failure.
em::TestbedState up(const platform::Platform& p, const std::string& platform_file, const EmulateArgs& a,
                    const std::string& status, em::Plan& plan_out) {
    em::require_privileges();
    em::install_interrupt_handlers();
    const std::string root = em::default_state_root();
    fs::create_directories(root);
    em::remove_leftovers(root, false, log_line);
    const std::string name = a.name.empty() ? p.name : a.name;
    if (fs::exists(root + "/" + name + "/state"))
        throw Error("a testbed named '" + name + "' is already up (gridcoll emulate down " + name +
                    ", or choose another --name)");
    const bool netem = em::probe_netem();
    const double native = platform::parse_time(a.native_delay);
    plan_out = make(p, name, em::free_slot(root), a.shaper, native, netem);
    print_summary(plan_out);
    em::CommandOptions copt;
    copt.delayline = find_delayline(a.delayline);
    if (a.realtime) copt.delayline_realtime = 10;
    const em::UpScript script = em::up_commands(plan_out, copt);
    em::TestbedState st;
    st.dir = plan_out.state_dir;
    st.name = plan_out.name;
    st.platform_file = fs::absolute(platform_file);
    st.shaper = a.shaper;
    st.slot = plan_out.slot;
    st.native_delay_s = native;
    st.status = "starting";
    st.owner = getpid();
    log_line("bringing up " + std::to_string(script.setup.size() + script.routes.size()) + " steps and " +
             std::to_string(script.daemons.size()) + " delay line(s)");
    em::bring_up(plan_out, script, st, log_line);
    st.status = status;
    em::write_state(st);
    return st;
}

// Loads a recorded testbed and its plan.
std::pair<em::TestbedState, em::Plan> load(const std::string& name, platform::Platform& p) {
    const std::string dir = em::default_state_root() + "/" + name;
    if (!fs::exists(dir + "/state"))
        throw Error("no testbed named '" + name + "' is up (gridcoll emulate status lists them)");
    em::TestbedState st = em::read_state(dir);
    p = platform::load_platform(st.platform_file);
    em::Plan plan = make(p, st.name, st.slot, st.shaper, st.native_delay_s, st.shaper == "netem" || em::probe_netem());
    return {st, plan};
}

int cmd_up(const EmulateArgs& a) {
    const platform::Platform p = platform::load_platform(a.platform);
    em::Plan plan;
    em::TestbedState st;
    try {
        st = up(p, a.platform, a, "up", plan);
        if (!a.no_check) {
            const int rc = run_check(plan, a);
            if (rc != 0) {
                log_line("fidelity check failed: the testbed stays up for inspection (gridcoll emulate down " + plan.name + ")");
                return rc;
            }
        }
    } catch (...) {
        if (!st.dir.empty() && em::interrupted()) em::tear_down(st, log_line);
        throw;
    }
    if (em::interrupted()) {
        em::tear_down(st, log_line);
        throw Error("interrupted: testbed removed");
    }
    std::printf("testbed '%s' is up: gridcoll emulate run %s -- COMMAND; gridcoll emulate down %s\n", plan.name.c_str(),
                plan.name.c_str(), plan.name.c_str());
    return 0;
}

int cmd_plan(const EmulateArgs& a) {
    const platform::Platform p = platform::load_platform(a.platform);
    const bool netem = a.shaper == "netem";
    const em::Plan plan = make(p, a.name, 0, a.shaper, platform::parse_time(a.native_delay), netem);
    print_summary(plan);
    em::CommandOptions copt;
    copt.delayline = find_delayline(a.delayline);
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
    em::install_interrupt_handlers();
    platform::Platform p;
    auto [st, plan] = load(a.name, p);
    const std::string h = em::health(st);
    if (!h.empty()) throw Error("testbed '" + a.name + "' is broken: " + h + " (gridcoll emulate down " + a.name + ")");
    return run_check(plan, a);
}

int cmd_run(const EmulateArgs& a) {
    if (a.mca.size() % 2 != 0) throw Error("--mca takes a KEY and a VALUE, e.g. --mca btl_tcp_eager_limit 4259840");
    em::require_privileges();
    const bool is_file = a.platform.size() > 5 && a.platform.substr(a.platform.size() - 5) == ".toml";
    platform::Platform p;
    em::Plan plan;
    em::TestbedState st;
    bool ephemeral = false;
    if (is_file) {
        p = platform::load_platform(a.platform);
        st = up(p, a.platform, a, "ephemeral", plan);
        ephemeral = true;
    } else {
        std::tie(st, plan) = load(a.platform, p);
        const std::string h = em::health(st);
        if (!h.empty()) throw Error("testbed '" + a.platform + "' is broken: " + h);
    }
    int rc = 0;
    try {
        if (ephemeral && !a.no_check) {
            rc = run_check(plan, a);
            if (rc != 0) throw Error("fidelity check failed: not running the command");
        }
        em::throw_if_interrupted();
        em::MpiOptions mo;
        mo.ranks = a.ranks;
        mo.yield_when_idle = !a.no_yield;
        for (std::size_t i = 0; i + 1 < a.mca.size(); i += 2) mo.extra_mca.insert(mo.extra_mca.end(), {"--mca", a.mca[i], a.mca[i + 1]});
        const auto argv = em::prepare_mpirun(plan, p, mo, a.command);
        log_line("running " + std::to_string(platform::place_ranks(p, a.ranks).size()) + " ranks across testbed '" +
                 plan.name + "'");
        rc = em::run_foreground(argv);
        std::error_code ec;
        fs::remove(plan.state_dir + "/hostfile-" + std::to_string(getpid()), ec);
    } catch (...) {
        if (ephemeral) em::tear_down(st, log_line);
        throw;
    }
    if (ephemeral) {
        log_line("removing testbed '" + plan.name + "'");
        em::tear_down(st, log_line);
    }
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
    platform::Platform p;
    const std::string dir = root + "/" + a.name;
    if (!fs::exists(dir + "/state")) throw Error("no testbed named '" + a.name + "' is up (gridcoll emulate status)");
    const em::TestbedState st = em::read_state(dir);
    em::tear_down(st, log_line);
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
    auto* down_cmd = app.add_subcommand("down", "remove a testbed, or --all of them and any leftovers");
    down_cmd->add_option("name", a->name, "testbed name");
    down_cmd->add_flag("--all", a->all, "every testbed and anything left by killed runs");
    return [a, up_cmd, plan_cmd, status_cmd, check_cmd, run_cmd, down_cmd]() -> int {
        if (up_cmd->parsed()) return cmd_up(*a);
        if (plan_cmd->parsed()) return cmd_plan(*a);
        if (status_cmd->parsed()) return cmd_status(*a);
        if (check_cmd->parsed()) return cmd_check(*a);
        if (run_cmd->parsed()) return cmd_run(*a);
        if (down_cmd->parsed()) return cmd_down(*a);
        return 2;
    };
}

}  // namespace gridcoll::cli
