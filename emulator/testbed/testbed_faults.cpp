// WAN faults on a testbed (blackhole qdiscs on a link's two ends, then its shaping put back) and
// their schedules. See gridcoll/emulator/testbed_faults.hpp.
#include "gridcoll/emulator/testbed_faults.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/system/files.hpp"
#include "gridcoll/system/process.hpp"
#include "gridcoll/emulator/testbed_machines.hpp"

namespace gridcoll::emulate {

namespace {

bool is_router(const TestbedPlan& plan, int ns) { return ns >= 0 && plan.ns[static_cast<std::size_t>(ns)].kind == NsKind::Router; }

// The links between two routers (the WAN, and zones' edges), each with its name.
std::vector<std::pair<std::string, std::size_t>> router_links(const TestbedPlan& plan) {
    std::vector<std::pair<std::string, std::size_t>> v;
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < plan.links.size(); ++i) {
        const Link& l = plan.links[i];
        if (!is_router(plan, l.a.ns) || !is_router(plan, l.b.ns)) continue;
        std::string name = plan.ns[static_cast<std::size_t>(l.a.ns)].label + ":" + plan.ns[static_cast<std::size_t>(l.b.ns)].label;
        if (const int n = ++seen[name]; n > 1) name += "#" + std::to_string(n);
        v.emplace_back(name, i);
    }
    return v;
}

void run_all(const TestbedPlan& plan, const std::vector<Command>& cmds) {
    for (const Command& c : cmds) {
        const sys::ProcResult r = sys::run_capture(on_machine(plan, c.machine, c.argv));
        if (r.status != 0) throw Error("fault: `" + c.text() + "` failed: " + r.out);
    }
}

std::string faults_file(const TestbedPlan& plan) { return plan.state_dir + "/faults"; }

void record(const TestbedPlan& plan, const std::map<std::string, std::time_t>& down) {
    std::string text;
    for (const auto& [name, since] : down) {
        char when[32];
        std::strftime(when, sizeof when, "%H:%M:%S", std::localtime(&since));
        text += name + " down since " + when + "\n";
    }
    if (text.empty()) std::remove(faults_file(plan).c_str());
    else sys::write_output(faults_file(plan), text);
}

}  // namespace

std::vector<std::string> fault_target_names(const TestbedPlan& plan) {
    std::vector<std::string> v;
    std::set<std::string> sites;
    for (const auto& [name, li] : router_links(plan)) {
        v.push_back(name);
        sites.insert(plan.ns[static_cast<std::size_t>(plan.links[li].a.ns)].label);
        sites.insert(plan.ns[static_cast<std::size_t>(plan.links[li].b.ns)].label);
    }
    for (const std::string& s : sites) v.push_back("site:" + s);
    return v;
}

FaultTarget fault_target(const TestbedPlan& plan, const std::string& name) {
    FaultTarget t{name, {}};
    const bool site = name.rfind("site:", 0) == 0;
    for (const auto& [link, li] : router_links(plan)) {
        const Link& l = plan.links[li];
        const std::string a = plan.ns[static_cast<std::size_t>(l.a.ns)].label, b = plan.ns[static_cast<std::size_t>(l.b.ns)].label;
        const bool hit = site ? (name.substr(5) == a || name.substr(5) == b) : (link == name || b + ":" + a == name);
        if (hit) t.links.push_back(li);
    }
    if (t.links.empty()) {
        std::string choices;
        for (const std::string& n : fault_target_names(plan)) choices += (choices.empty() ? "" : ", ") + n;
        throw Error("fault: testbed '" + plan.name + "' has no WAN link or site '" + name + "' (choose from: " +
                    (choices.empty() ? "none: it has no links between routers" : choices) + ")");
    }
    return t;
}

// A link's two shaped ends: (namespace, device, direction leaving there). On a link that crosses
// machines, b's shaped end is in the tunnel namespace of a's machine (Link::b_home).
std::vector<std::tuple<int, std::string, const Direction*>> shaped_ends(const Link& l) {
    return {{l.a.ns, l.a.ifname, &l.ab}, {l.b_home, l.b.ifname, &l.ba}};
}

std::vector<Command> fault_down_commands(const TestbedPlan& plan, const FaultTarget& t) {
    std::vector<Command> v;
    for (std::size_t li : t.links)
        for (const auto& [ns, dev, dir] : shaped_ends(plan.links[li])) {
            const Netns& n = plan.ns[static_cast<std::size_t>(ns)];
            v.push_back({{"tc", "-n", n.name, "qdisc", "replace", "dev", dev, "root", "blackhole"}, n.machine});
        }
    return v;
}

std::vector<Command> fault_restore_commands(const TestbedPlan& plan, const FaultTarget& t) {
    std::vector<Command> v;
    for (std::size_t li : t.links) {
        const Link& l = plan.links[li];
        for (const auto& [ns, dev, dir] : shaped_ends(l)) {
            const Netns& n = plan.ns[static_cast<std::size_t>(ns)];
            v.push_back({{"tc", "-n", n.name, "qdisc", "del", "dev", dev, "root"}, n.machine});
            if (l.shaper == Shaper::DelayLine) continue;  // the delay line shapes it; the TAP had no qdisc
            const auto args = qdisc_args(*dir, l.shaper, 0, plan.dilation);
            if (args.empty()) continue;
            std::vector<std::string> a{"tc", "-n", n.name, "qdisc", "add", "dev", dev, "root"};
            a.insert(a.end(), args.begin(), args.end());
            v.push_back({a, n.machine});
        }
    }
    return v;
}

std::vector<ScheduledFault> read_fault_schedule(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw Error(file + ": cannot read the fault schedule");
    std::vector<ScheduledFault> v;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string at, dur, target, extra;
        if (!(words >> at)) continue;
        const std::string where = file + ":" + std::to_string(n) + ": ";
        if (!(words >> dur >> target) || (words >> extra))
            throw Error(where + "expected '<at> <duration> <link or site:S>', got '" + line + "'");
        try {
            v.push_back({platform::parse_time(at), platform::parse_time(dur), target});
        } catch (const Error& e) {
            throw Error(where + e.what());
        }
        if (v.back().for_s <= 0) throw Error(where + "the duration must be positive (got '" + dur + "')");
    }
    return v;
}

std::string faults_in_force(const TestbedPlan& plan) {
    std::ifstream in(faults_file(plan));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string fault_history(const TestbedPlan& plan, std::time_t since) {
    std::ifstream in(plan.state_dir + "/faults.log");
    std::string out, target, what;
    std::time_t t = 0;
    while (in >> t >> target >> what) {
        if (t < since) continue;
        char when[32];
        std::strftime(when, sizeof when, "%H:%M:%S", std::localtime(&t));
        out += std::string(out.empty() ? "" : ", ") + target + " " + what + " at " + when;
    }
    return out;
}

void check_fault_schedule(const TestbedPlan& plan, const std::vector<ScheduledFault>& faults) {
    for (const ScheduledFault& f : faults) fault_target(plan, f.target);
}

void run_fault_schedule(const TestbedPlan& plan, const std::vector<ScheduledFault>& faults, const Log& log,
                        const std::atomic<bool>* cancel) {
    struct Change {
        double t;
        bool down;
        std::size_t fault;
    };
    std::vector<FaultTarget> targets;
    std::vector<Change> changes;
    for (std::size_t i = 0; i < faults.size(); ++i) {
        targets.push_back(fault_target(plan, faults[i].target));
        changes.push_back({faults[i].at_s, true, i});
        changes.push_back({faults[i].at_s + faults[i].for_s, false, i});
    }
    std::stable_sort(changes.begin(), changes.end(), [](const Change& x, const Change& y) { return x.t < y.t; });
    std::map<std::size_t, int> down_count;  // link -> faults holding it down
    std::map<std::string, std::time_t> in_force;
    const auto start = std::chrono::steady_clock::now();
    const auto apply = [&](const Change& c) {
        const FaultTarget& t = targets[c.fault];
        FaultTarget changed{t.name, {}};
        for (std::size_t li : t.links)
            if ((c.down ? down_count[li]++ : --down_count[li]) == 0) changed.links.push_back(li);
        if (!changed.links.empty()) run_all(plan, c.down ? fault_down_commands(plan, changed) : fault_restore_commands(plan, changed));
        if (c.down) in_force[t.name] = std::time(nullptr);
        else in_force.erase(t.name);
        record(plan, in_force);
        std::ofstream(plan.state_dir + "/faults.log", std::ios::app) << std::time(nullptr) << " " << t.name << (c.down ? " down\n" : " up\n");
        char at[32];
        std::snprintf(at, sizeof at, " (at %.1f s)", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        log(t.name + (c.down ? " down" : " up again") + at);
    };
    const auto restore_rest = [&](std::size_t next) {  // put back what is still down
        for (; next < changes.size(); ++next)
            if (!changes[next].down && in_force.count(targets[changes[next].fault].name)) apply(changes[next]);
    };
    std::size_t next = 0;
    try {
        for (; next < changes.size(); ++next) {
            const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                         std::chrono::duration<double>(changes[next].t));
            while (std::chrono::steady_clock::now() < due) {
                throw_if_interrupted();
                if (cancel && cancel->load()) return restore_rest(next);
                std::this_thread::sleep_until(std::min(due, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
            }
            apply(changes[next]);
        }
    } catch (...) {
        restore_rest(next);
        throw;
    }
}

}  // namespace gridcoll::emulate

namespace gridcoll::emulate {

void BackgroundFaults::start() {
    if (thread_.joinable() || faults_.empty()) return;
    thread_ = std::thread([this] {
        const Log log = [](const std::string& s) { std::fprintf(stderr, "gridcoll emulate: fault %s\n", s.c_str()); };
        try {
            run_fault_schedule(plan_, faults_, log, &stop_);
        } catch (const std::exception& e) {
            log(std::string("schedule stopped: ") + e.what());
        }
    });
}

BackgroundFaults::~BackgroundFaults() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

}  // namespace gridcoll::emulate
