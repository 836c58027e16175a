// Open MPI across an emulated testbed: its settings (shared with `gridcoll emulate`) and how it
// opens.
#include <unistd.h>

#include <memory>

#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/units.hpp"
#include "gridcoll/backends/testbed_settings.hpp"
#include "gridcoll/emulator/emulated_backend.hpp"
#include "gridcoll/emulator/testbed_dilation.hpp"
#include "gridcoll/emulator/testbed_faults.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"
#include "gridcoll/emulator/testbed_runner.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "openers.hpp"

namespace gridcoll::backends {

namespace {

using T = SettingType;

void log_to(const Target& t, const std::string& line) {
    if (t.log) t.log(line);
}

int whole(const SettingReader& s, const std::string& key) {
    const double v = s.number(key);
    if (v < 1 || v != static_cast<int>(v)) throw Error("emulated backend: " + key + " must be a whole number >= 1 (got " + s.text(key) + ")");
    return static_cast<int>(v);
}

emulate::MpiOptions mpi_options(const SettingReader& s, int ranks) {
    emulate::MpiOptions o;
    o.ranks = ranks;
    o.yield_when_idle = s.flag("yield_when_idle");
    o.extra_mca = s.mca("mca");
    o.fault_schedule = s.text("faults");
    if (!o.fault_schedule.empty()) emulate::read_fault_schedule(o.fault_schedule);  // its errors now, not mid-sweep
    const std::string stall = s.text("stall_timeout");
    if (stall != "auto") {
        o.stall_s = stall == "0" ? 0 : platform::parse_time(stall);
        if (o.stall_s < 0) throw Error("emulated backend: stall_timeout must be auto, 0 or a time >= 0 (got " + stall + ")");
    }
    return o;
}

}  // namespace

const std::vector<std::string> kTestbedKeys = {"shaper", "native_delay", "delayline", "realtime", "containers", "windows", "dilation",
                                               "cpu_cap", "machines"};
const std::vector<std::string> kCheckKeys = {"pings", "loss_packets", "transfer"};
const std::vector<std::string> kMpirunKeys = {"yield_when_idle", "stall_timeout", "faults", "mca"};

BackendInfo emulated_info() {
    return {"emulated", "gridcoll-bench under Open MPI across an emulated WAN testbed (root, network namespaces)", true,
            {{"shaper", "--shaper", T::Text, "auto",
              "how delay, jitter and loss are shaped: auto (netem if the kernel has it, else the delay line), netem, delayline",
              {"auto", "netem", "delayline"}},
             {"native_delay", "--native-delay", T::Text, "50us", "delays up to this are left to the kernel's own latency (not shaped)"},
             {"delayline", "--delayline", T::Text, "", "path of gridcoll-delayline (default: next to gridcoll)"},
             {"realtime", "--realtime", T::Flag, "false", "run delay lines with SCHED_FIFO priority 10 instead of nice -10"},
             {"containers", "!--no-containers", T::Flag, "true",
              "containerised hosts: each its own PID and mount namespaces (own /proc, private /dev/shm, a private layer "
              "over /tmp) and a CPU weight by cgroups (off: network and UTS namespaces only)"},
             {"windows", "!--no-windows", T::Flag, "true",
              "each host's routes to other networks advertise a receive window of twice that path's bandwidth-delay "
              "product, so TCP does not overflow the links' queues (off: the kernel's autotuned windows; "
              "docs/design/emulated-windows.md)"},
             {"dilation", "--dilation", T::Text, "1",
              "time dilation K: every link K times slower, every containerised host 1/K of its cores, the ranks' "
              "clocks divided by K, so a machine K times smaller measures the undilated platform; auto: the "
              "platform's cores per core of this machine"},
             {"cpu_cap", "--cpu-cap", T::Text, "auto",
              "under dilation, cap each containerised host at cores / K CPUs (a CFS quota): auto (only where the "
              "machine's fair share would give hosts more: K above the platform's cores per core here), on, off",
              {"auto", "on", "off"}},
             {"machines", "--machines", T::Text, "",
              "spread the testbed over machines: N (2-16 namespaces of this machine standing in for machines) or "
              "A,B,... (machines reached by ssh, this one among them; gridcoll and the description at the same paths "
              "on each), joined by VXLAN tunnels"},
             {"pings", "--pings", T::Number, "50", "fidelity check: round-trip samples per path class"},
             {"loss_packets", "--loss-packets", T::Number, "2000", "fidelity check: pings sent to measure a lossy path"},
             {"transfer", "--transfer", T::Number, "4", "fidelity check: seconds of bulk transfer per path class"},
             {"check", "!--no-check", T::Flag, "true", "a one-off testbed: check its fidelity before use"},
             {"yield_when_idle", "!--no-yield", T::Flag, "true", "let Open MPI yield when idle (off: busy-poll, mpi_yield_when_idle 0)"},
             {"stall_timeout", "--stall-timeout", T::Text, "auto",
              "stop a run that makes no progress (no output, no data received by any host) for this long: auto (30 s + "
              "1000 x the slowest round trip), a time (\"90s\"), or 0 (never)"},
             {"faults", "--faults", T::Text, "",
              "a WAN fault schedule carried out during each run, from its first output (gridcoll-bench: after MPI_Init) (lines '<at> <duration> <A:B or "
              "site:S>', as emulate fault --schedule)"},
             mca_setting(),
             bench_setting()}};
}

bool is_description(const std::string& platform) {
    return platform.size() > 5 && platform.substr(platform.size() - 5) == ".toml";
}

std::unique_ptr<emulate::Testbed> testbed_for(const std::string& platform, const SettingValues& values, bool check,
                                              const std::function<void(const std::string&)>& log, const std::string& name) {
    emulate::require_privileges();
    if (!is_description(platform)) return emulate::Testbed::open(platform);
    auto tb = emulate::Testbed::up(platform, testbed_options(values, name), false, log);
    if (!check) return tb;
    const auto rows = tb->check(check_options(values), log);
    std::size_t failed = 0;
    for (const auto& r : rows) failed += !r.pass;
    const std::string table = emulate::format_check_table(rows);
    if (log)
        for (const auto& line : split_lines(table)) log(std::string(line));
    if (failed) throw Error("fidelity check failed (" + std::to_string(failed) + " of " + std::to_string(rows.size()) +
                            " measurements off): not running on testbed '" + tb->name() + "'");
    return tb;
}

OpenedBackend open_emulated(const SettingReader& s, const Target& t) {
    if (!t.placement.empty()) throw Error("the emulated backend places ranks as the description says (no placement)");
    if (!t.hostfile.empty()) throw Error("the emulated backend runs a description (.toml) or a testbed that is up (no hostfile)");
    SettingValues values;
    for (const std::string& k : kTestbedKeys) values[k] = {s.text(k)};
    for (const std::string& k : kCheckKeys) values[k] = {s.text(k)};
    // The delay line beside the other programs (t.bin_dir): a Python host process has no sibling.
    values["delayline"] = {program(t, "gridcoll-delayline", s.text("delayline"))};
    auto tb = testbed_for(t.platform, values, s.flag("check"), t.log);
    const emulate::MpiOptions mo = mpi_options(s, t.ranks);
    const int ranks = static_cast<int>(platform::place_ranks(tb->platform(), t.ranks).size());
    OpenedBackend o;
    o.topology = std::make_shared<const Topology>(platform::topology(tb->platform(), ranks));
    log_to(t, "running " + std::to_string(ranks) + " ranks across testbed '" + tb->name() + "'");
    o.backend = std::make_unique<emulate::EmulatedBackend>(std::move(tb), mo, program(t, "gridcoll-bench", s.text("bench")));
    o.ranks = ranks;
    o.mpi = true;
    return o;
}

emulate::TestbedOptions testbed_options(const SettingValues& values, const std::string& name) {
    const SettingReader s(find_backend("emulated"), values);
    emulate::TestbedOptions o;
    o.name = name;
    o.shaper = s.text("shaper");
    o.native_delay_s = platform::parse_time(s.text("native_delay"));
    o.delayline = s.text("delayline");
    o.realtime = s.flag("realtime");
    o.containers = s.flag("containers");
    o.windows = s.flag("windows");
    o.dilation = s.text("dilation");
    o.cpu_cap = s.text("cpu_cap");
    o.machines = s.text("machines");
    return o;
}

std::string testbed_layout(const std::string& platform, const SettingValues& values) {
    const emulate::TestbedOptions o = testbed_options(values);
    std::string setting = o.dilation;
    double k = 1;
    std::string where;
    if (is_description(platform)) {
        const emulate::TestbedPlan plan = emulate::Testbed::plan_only(platform, o);
        k = plan.dilation;
        where = std::to_string(plan.hosts.size()) + " hosts, " + emulate::machines_summary(plan);
    } else {
        const auto tb = emulate::Testbed::open(platform);
        k = tb->plan().dilation;
        where = std::to_string(tb->plan().hosts.size()) + " hosts, " + emulate::machines_summary(tb->plan());
        setting = "of the running testbed";
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return "dilation " + emulate::format_dilation(k) + " (setting " + setting + ", this machine has " +
           std::to_string(emulate::machine_cores()) + " cores); " + where + " (controller: " + host + ")";
}

emulate::CheckOptions check_options(const SettingValues& values) {
    const SettingReader s(find_backend("emulated"), values);
    emulate::CheckOptions o;
    o.pings = whole(s, "pings");
    o.loss_packets = whole(s, "loss_packets");
    o.transfer_s = s.number("transfer");
    if (o.transfer_s <= 0) throw Error("emulated backend: transfer must be positive (got " + s.text("transfer") + ")");
    return o;
}

emulate::MpiOptions mpi_options(const SettingValues& values, int ranks) {
    return mpi_options(SettingReader(find_backend("emulated"), values), ranks);
}

}  // namespace gridcoll::backends
