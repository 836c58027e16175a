// Containerised testbed hosts: each host's init process, in PID and mount namespaces of its own
// inside the host's network and UTS namespaces (see testbed_commands.hpp, host_containers).
#include <algorithm>

#include "gridcoll/emulator/testbed_commands.hpp"
#include "gridcoll/emulator/testbed_dilation.hpp"

namespace gridcoll::emulate {

namespace {

// The cgroup directories a host may get: cgroup v2 (one hierarchy), else v1's cpu controller.
std::string cgroup_name(const std::string& testbed, const std::string& host) { return "gridcoll-" + testbed + "-" + host; }

std::string init_script(const TestbedPlan& plan, const std::string& host, int cores, const std::string& ready) {
    const std::string d = plan.host_dir(host), cg = cgroup_name(plan.name, host);
    const std::string weight = std::to_string(std::clamp(100 * cores, 1, 10000)), shares = std::to_string(1024 * cores);
    // Dilated by K: a cap of cores / K CPUs besides the weight (cpu.max, or v1's CFS quota).
    std::string v2_cap, v1_cap;
    if (plan.dilation > 1 && plan.cpu_cap) {
        const CpuQuota q = cpu_quota(cores, plan.dilation);
        const std::string quota = std::to_string(q.quota_us), period = std::to_string(q.period_us);
        v2_cap = " && echo '" + quota + " " + period + "' > \"$cg/cpu.max\"";
        v1_cap = " && echo " + period + " > \"$cg/cpu.cfs_period_us\" && echo " + quota + " > \"$cg/cpu.cfs_quota_us\"";
    }
    return "set -e\n"
           "d='" + d + "'\n"
           "mkdir -p \"$d/upper\" \"$d/work\"\n"
           "read pid rest < /proc/self/stat   # this shell's PID as the machine sees it (before /proc is ours)\n"
           "cg=''\n"
           "if [ -f /sys/fs/cgroup/cgroup.controllers ]; then\n"
           "  cg=/sys/fs/cgroup/" + cg + "; mkdir -p \"$cg\" && echo " + weight + " > \"$cg/cpu.weight\"" + v2_cap + " || cg=''\n"
           "elif [ -d /sys/fs/cgroup/cpu ]; then\n"
           "  cg=/sys/fs/cgroup/cpu/" + cg + "; mkdir -p \"$cg\" && echo " + shares + " > \"$cg/cpu.shares\"" + v1_cap + " || cg=''\n"
           "fi\n"
           "# (a PID written to cgroup.procs is read in the writer's PID namespace: $$, ourselves)\n"
           "if [ -n \"$cg\" ] && echo $$ > \"$cg/cgroup.procs\"; then echo \"$cg\" > \"$d/cgroup\"; fi\n"
           "mount -t overlay overlay -o \"lowerdir=/tmp,upperdir=$d/upper,workdir=$d/work\" /tmp\n"
           "mount -t tmpfs -o mode=1777 tmpfs /dev/shm\n"
           "mount -t proc proc /proc\n"
           "echo \"$pid\" > \"$d/pid\"\n"
           "touch '" + ready + "'\n"
           "exec sleep infinity\n";
}

}  // namespace

std::vector<Daemon> host_containers(const TestbedPlan& plan) {
    std::vector<Daemon> v;
    for (const std::string& h : plan.hosts) {
        const std::string ns = plan.ns[static_cast<std::size_t>(plan.host_ns.at(h))].name;
        const auto cores = plan.host_cores.find(h);
        Daemon d;
        d.label = "host " + h + " (PID and mount namespaces)";
        d.machine = plan.machine_of_host(h);
        d.ready_file = plan.host_dir(h) + ".ready";
        d.log_file = plan.state_dir + "/log/host-" + h + ".log";
        d.argv = {"nsenter", "--net=/run/netns/" + ns, "--uts=" + plan.uts_file(h), "--", "unshare", "--pid", "--mount",
                  "--fork", "--kill-child", "--propagation", "private", "/bin/sh", "-c",
                  init_script(plan, h, cores == plan.host_cores.end() ? 1 : std::max(1, cores->second), d.ready_file)};
        v.push_back(std::move(d));
    }
    return v;
}

std::vector<std::string> host_cgroups(const std::string& name, const std::vector<std::string>& hosts) {
    std::vector<std::string> v;
    for (const std::string& h : hosts)
        for (const std::string root : {"/sys/fs/cgroup/", "/sys/fs/cgroup/cpu/"}) v.push_back(root + cgroup_name(name, h));
    return v;
}

}  // namespace gridcoll::emulate
