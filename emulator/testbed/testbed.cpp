#include "gridcoll/emulator/testbed.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "gridcoll/system/files.hpp"
#include "gridcoll/system/process.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_dilation.hpp"
#include "gridcoll/emulator/testbed_faults.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"
#include "gridcoll/emulator/testbed_remote.hpp"

namespace gridcoll::emulate {

namespace fs = std::filesystem;

namespace {

// TCP's timers are the kernel's, not dilated: its 200 ms floor on the retransmission timeout sits
// ten round trips above a 20 ms WAN's round trip, but below the same WAN's round trip dilated x64
// (1.28 s), where a queue's delay spike can fire spurious timeouts (each one doubling the next).
// Under dilation K the floor is K x 200 ms (at most TCP's 120 s ceiling), where the kernel has
// the setting (Linux 6.11 on); 0 leaves the kernel's.
long dilated_rto_min_us(double k) {
    if (k <= 1 || !fs::exists("/proc/sys/net/ipv4/tcp_rto_min_us")) return 0;
    return static_cast<long>(std::min(200000.0 * k, 120e6));
}

// The hosts' TCP congestion control. Undilated: CUBIC, Linux's default, whatever this machine's
// default is (BBR drains its window every 10 s to probe the round trip, which on a long dilated
// WAN round trip cost 7-16 % of a link's throughput). Dilated: Reno, whose window grows per
// acknowledgement, so K times slower round trips leave it the same in round trips; CUBIC grows
// its window by the real clock, K times faster per dilated round trip, and over a 100 ms queue
// at x33 overflowed it every few round trips (one connection over das's WAN: 88 % of the rate;
// Reno 100 %).
std::string congestion_control(double k) { return k > 1 ? "reno" : "cubic"; }

// `allow` (bring-up): make the chosen congestion control usable in the namespaces, else leave
// the machine's default. Without it (opening a testbed that is up) the plan names the choice.
TestbedPlan make(const platform::Platform& p, const std::string& name, int slot, const TestbedOptions& o, bool netem,
                 const Log* allow = nullptr) {
    PlanOptions po;
    po.name = name;
    po.slot = slot;
    po.shaper = o.shaper;
    po.containers = o.containers;
    po.netem_available = netem;
    po.state_root = default_state_root();
    po.machines = machines_from_spec(o.machines, slot, system_lookup(), o.part);
    po.native_delay_s = o.native_delay_s;
    const double rtt = o.dilation == "auto" ? make_plan(p, po).longest_round_trip_s : 0;
    const double k = resolve_dilation(o.dilation, p, machine_cores(), rtt);
    // The floor scales too: a delay the undilated testbed leaves to the kernel stays unshaped, so
    // a dilated testbed has no more delay lines than the undilated one (at K = 16, das-4x32's
    // LAN links would otherwise need 128 of them on 2 cores).
    po.native_delay_s = o.native_delay_s * k;
    TestbedPlan plan = make_plan(dilated(p, k), po);
    plan.dilation = k;
    plan.tcp_congestion = congestion_control(k);
    if (allow && !allow_congestion_control(plan.tcp_congestion, *allow)) plan.tcp_congestion.clear();
    plan.tcp_rto_min_us = dilated_rto_min_us(k);
    plan.cpu_cap = o.containers && cpu_capped(o.cpu_cap, k, p, machine_cores());
    plan.window_routes = o.windows;
    if (k != 1) {
        char n[32];
        std::snprintf(n, sizeof n, "%g", k);
        const std::string x = n;
        plan.notes.push_back("time dilation x" + x + ": every link " + x + " times slower (delay, rate), " +
                             (plan.cpu_cap ? "every host 1/" + x + " of its cores (CFS quota), "
                              : o.containers ? std::string("hosts share the CPU by their weights (no quota: --cpu-cap), ")
                                             : std::string("hosts' CPU not limited (no containers), ")) +
                             "times the ranks measure divided by " + x + " (GRIDCOLL_DILATION), " +
                             (plan.tcp_rto_min_us > 0 ? "TCP's least retransmission timeout " + x + " x 200 ms"
                                                      : std::string("TCP's timers not dilated (this kernel has no tcp_rto_min_us)")) +
                             (plan.tcp_congestion == "reno" ? ", Reno congestion control (CUBIC's window grows by the real clock)"
                                                            : std::string()));
    }
    if (const double per_core = resolve_dilation(o.dilation, p, machine_cores()); k < per_core) {
        char n[256];
        std::snprintf(n, sizeof n, "dilation auto: x%g, not x%g (hosts per core): the longest round trip, %.3g ms, "
                      "dilated stays within %.0f ms, below TCP's fixed 1 s initial retransmission timeout",
                      k, per_core, rtt * 1e3, kDilatedRoundTripBudget_s * 1e3);
        plan.notes.push_back(n);
    }
    return plan;
}

std::string hostfile_of(const TestbedPlan& plan) { return plan.state_dir + "/hostfile-" + std::to_string(getpid()); }

}  // namespace

std::string find_delayline(const std::string& given) {
    if (!given.empty()) return given;
    const std::string sib = sys::self_dir() + "/gridcoll-delayline";
    if (access(sib.c_str(), X_OK) == 0) return sib;
    return "gridcoll-delayline";
}

std::string summary(const TestbedPlan& plan) {
    int hosts = 0, routers = 0, delaylines = 0;
    for (const auto& n : plan.ns) hosts += n.kind == NsKind::Host, routers += n.kind == NsKind::Router;
    for (const auto& l : plan.links) delaylines += l.shaper == Shaper::DelayLine;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "testbed '%s' (platform %s, slot %d): %d hosts, %d routers, %zu links (%d delay lines), data %s, "
                  "management %s\nshaping: rate by tbf%s; delay, jitter and loss by %s\n",
                  plan.name.c_str(), plan.platform_name.c_str(), plan.slot, hosts, routers, plan.links.size(), delaylines,
                  plan.data_cidr.c_str(), plan.mgmt_cidr.c_str(),
                  plan.delay_shaper == "netem" ? "/netem" : (plan.delay_shaper == "delayline" ? "/delay line" : ""),
                  plan.delay_shaper.c_str());
    std::string s = buf;
    for (const auto& n : plan.notes) s += "  note: " + n + "\n";
    s += "TCP buffers up to " + std::to_string(plan.tcp_buffer_max) + " bytes (2 x the largest bandwidth-delay product); " +
         "congestion control " + (plan.tcp_congestion.empty() ? "the machine's default" : plan.tcp_congestion) + "\n";
    const auto windows = route_windows(plan);
    if (!windows.empty()) {
        const auto [least, most] = std::minmax_element(windows.begin(), windows.end(),
                                                       [](const auto& a, const auto& b) { return a.window < b.window; });
        s += "receive windows towards other networks: " + std::to_string(least->window) +
             (least->window == most->window ? "" : " to " + std::to_string(most->window)) +
             " bytes (2 x each path's bandwidth-delay product)\n";
    }
    return s;
}

TestbedPlan Testbed::plan_only(const std::string& platform_file, const TestbedOptions& opt) {
    const platform::Platform p = platform::load_platform(platform_file);
    return make(p, opt.name, 0, opt, opt.shaper == "netem");
}

namespace {

TestbedState starting_state(const TestbedPlan& plan, const std::string& platform_file, const TestbedOptions& opt) {
    TestbedState st;
    st.dir = plan.state_dir;
    st.name = plan.name;
    st.platform_file = fs::absolute(platform_file);
    st.shaper = opt.shaper;
    st.slot = plan.slot;
    st.native_delay_s = opt.native_delay_s;
    st.containers = plan.containers;
    st.windows = plan.window_routes;
    st.dilation = plan.dilation;
    st.status = "starting";
    st.owner = getpid();
    st.machines = machines_spec(plan.machines);
    st.part = opt.part;
    return st;
}

// Over machines reached by SSH: this machine's part here, then every other machine's there.
void bring_up_spread(const TestbedPlan& plan, const UpScript& script, TestbedState& st, const TestbedOptions& opt,
                     const Log& log) {
    PartOptions po;
    po.gridcoll = st.gridcoll;
    po.platform_file = st.platform_file;
    po.shaper = plan.delay_shaper == "netem" ? "netem" : "delayline";
    po.native_delay_s = opt.native_delay_s;
    po.dilation = plan.dilation;
    po.containers = plan.containers;
    po.cpu_cap = plan.cpu_cap;
    po.realtime = opt.realtime;
    po.windows = plan.window_routes;
    bring_up(plan, part_of(script, 0), st, log);
    try {
        bring_up_remote_parts(plan, po, st, log);
    } catch (...) {
        log("bring-up failed: removing what was created");
        tear_down(st, log);
        throw;
    }
}

}  // namespace

std::unique_ptr<Testbed> Testbed::up(const std::string& platform_file, const TestbedOptions& opt, bool persistent,
                                     const Log& log) {
    platform::Platform p = platform::load_platform(platform_file);
    require_privileges();
    install_interrupt_handlers();
    const std::string root = default_state_root();
    fs::create_directories(root);
    remove_leftovers(root, false, log);
    const std::string name = opt.name.empty() ? p.name : opt.name;
    if (fs::exists(root + "/" + name + "/state"))
        throw Error("a testbed named '" + name + "' is already up (gridcoll emulate down " + name + ", or choose another --name)");
    const int slot = opt.part >= 0 && opt.slot >= 0 ? opt.slot : free_slot(root);
    TestbedPlan plan = make(p, name, slot, opt, opt.part >= 0 ? opt.shaper == "netem" : probe_netem(), &log);
    std::fputs(summary(plan).c_str(), stderr);
    CommandOptions copt;
    copt.delayline = find_delayline(opt.delayline);
    if (opt.realtime) copt.delayline_realtime = 10;
    UpScript script = up_commands(plan, copt);
    if (opt.part >= 0) script = part_of(script, opt.part);
    TestbedState st = starting_state(plan, platform_file, opt);
    st.gridcoll = (fs::path(copt.delayline).parent_path() / "gridcoll").string();
    log("bringing up " + std::to_string(script.setup.size() + script.routes.size()) + " steps and " +
        std::to_string(script.daemons.size()) + " delay line(s)");
    make_room_for_neighbours(neighbour_entries(plan), log);
    if (has_remote_machines(plan) && opt.part < 0) bring_up_spread(plan, script, st, opt, log);
    else bring_up(plan, script, st, log);  // removes what it made and throws on failure or interruption
    st.status = persistent || opt.part >= 0 ? "up" : "ephemeral";
    write_state(st);
    if (opt.part >= 0) write_rsh_agent(plan);  // the controller's agent forwards this machine's hosts to it
    return std::unique_ptr<Testbed>(new Testbed(std::move(p), std::move(plan), std::move(st), !persistent && opt.part < 0));
}

std::unique_ptr<Testbed> Testbed::open(const std::string& name) {
    const std::string dir = default_state_root() + "/" + name;
    if (!fs::exists(dir + "/state")) throw Error("no testbed named '" + name + "' is up (gridcoll emulate status lists them)");
    TestbedState st = read_state(dir);
    const std::string h = health(st);
    if (!h.empty()) throw Error("testbed '" + name + "' is broken: " + h + " (gridcoll emulate down " + name + ")");
    platform::Platform p = platform::load_platform(st.platform_file);
    TestbedOptions o;
    o.shaper = st.shaper;
    o.native_delay_s = st.native_delay_s;
    o.containers = st.containers;
    o.windows = st.windows;
    o.dilation = std::to_string(st.dilation);
    o.machines = st.machines;
    o.part = st.part;
    TestbedPlan plan = make(p, st.name, st.slot, o, st.shaper == "netem" || probe_netem());
    return std::unique_ptr<Testbed>(new Testbed(std::move(p), std::move(plan), std::move(st), false));
}

Testbed::~Testbed() {
    if (owned_ && !gone_) down([](const std::string& s) { std::fprintf(stderr, "gridcoll emulate: %s\n", s.c_str()); });
}

std::vector<CheckRow> Testbed::check(const CheckOptions& opt, const Log& log) const {
    install_interrupt_handlers();
    return check_testbed(plan_, opt, log);
}

// mpirun `command` across the testbed through `runner`; the hostfile prepare_mpirun writes goes
// afterwards, also when the runner throws.
int Testbed::mpirun(const MpiOptions& opt, const std::vector<std::string>& command,
                    const std::function<int(const std::vector<std::string>&)>& runner) const {
    throw_if_interrupted();
    const sys::RemoveOnExit hostfile(hostfile_of(plan_));
    return runner(prepare_mpirun(plan_, platform_, opt, command));
}

int Testbed::run(const MpiOptions& opt, const std::vector<std::string>& command) const {
    return run_lines(opt, command, [](const std::string& line) {
        std::fputs((line + "\n").c_str(), stdout);
        std::fflush(stdout);
    });
}

// mpirun under the watch (testbed_faults.hpp): a run without output or data received for the
// stall limit is stopped with everything it started in the hosts' namespaces, and is an Error
// that says so, with the WAN faults of the meantime.
int Testbed::run_lines(const MpiOptions& opt, const std::vector<std::string>& command,
                       const std::function<void(const std::string&)>& on_line) const {
    sys::Watch w;
    w.stall_s = opt.stall_s < 0 ? default_stall_s(plan_) : opt.stall_s;
    w.progress = [this] { return hosts_received_bytes(plan_); };
    // A fault schedule starts with the program's first line of output: gridcoll-bench prints its
    // header after MPI_Init, when every connection is made.
    std::unique_ptr<BackgroundFaults> faults;
    if (!opt.fault_schedule.empty()) {
        auto list = read_fault_schedule(opt.fault_schedule);
        check_fault_schedule(plan_, list);
        faults = std::make_unique<BackgroundFaults>(plan_, std::move(list));
    }
    const auto tee = [&](const std::string& line) {
        if (faults) faults->start();
        on_line(line);
    };
    const std::time_t started = std::time(nullptr);
    const int rc = mpirun(opt, command, [&](const std::vector<std::string>& argv) { return sys::run_lines(argv, tee, w); });
    faults.reset();  // every link restored before anything else
    if (rc != sys::kStalled || w.stall_s <= 0) return rc;
    stop_host_processes(plan_);
    const std::string history = fault_history(plan_, started);
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.0f s", w.stall_s);
    throw Error("the run across testbed '" + name() + "' (" + command.front() + ") made no progress for " + limit +
                " (no output, no data received by any host) and was stopped" +
                (history.empty() ? std::string(" (no WAN fault was injected meanwhile)") : "; WAN faults meanwhile: " + history) +
                " (--stall-timeout sets the limit)");
}

std::string Testbed::write_rank_map(int ranks) const {
    const std::string path = plan_.state_dir + "/ranks-" + std::to_string(getpid());
    const std::string text = platform::topology(platform_, ranks).to_text();
    sys::write_output(path, text);
    copy_to_remote_machines(plan_, path, text);  // the ranks there read it too
    return path;
}

void Testbed::down(const Log& log) {
    if (gone_) return;
    tear_down(state_, log);
    gone_ = true;
}

}  // namespace gridcoll::emulate
