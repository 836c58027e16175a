#include "gridcoll/emulator/testbed_mpi.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <utility>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/runtime/openmpi_backend.hpp"

namespace gridcoll::emulate {

namespace {

// The agent's lines that hand hosts of machines reached by SSH to the agent there.
std::string remote_hosts_case(const TestbedPlan& plan) {
    if (!plan.spread()) return "";
    std::string out;
    for (std::size_t k = 0; k < plan.machines.size(); ++k) {
        const Machine& m = plan.machines[k];
        if (m.local) continue;
        std::string hosts;
        for (const std::string& h : plan.hosts)
            if (plan.machine_of_host(h) == static_cast<int>(k)) hosts += (hosts.empty() ? "" : "|") + h;
        if (hosts.empty()) continue;
        out += "    " + hosts + ") exec ssh -o BatchMode=yes " + m.name + " \"" + plan.state_dir +
               "/rsh-agent\" \"$host\" \"'$(printf '%s' \"$*\" | sed \"s/'/'\\\\\\\\''/g\")'\" ;;\n";
    }
    return out.empty() ? "" : "case \"$host\" in   # hosts of other machines: their agent, the command quoted once\n" + out + "esac\n";
}

}  // namespace

std::string rsh_agent_script(const TestbedPlan& plan) {
    return "#!/bin/sh\n"
           "# Open MPI's rsh agent for gridcoll testbed '" + plan.name + "': runs the command given by mpirun\n"
           "# on a testbed host, i.e. in that host's network and UTS namespaces (written by gridcoll emulate).\n"
           "while [ \"${1#-}\" != \"$1\" ]; do shift; done   # options meant for ssh\n"
           "host=$1; shift\n" + remote_hosts_case(plan) +
           "uts=\"" + plan.state_dir + "/uts/$host\"\n"
           "if [ ! -e \"$uts\" ] || [ ! -e \"/run/netns/" + plan.prefix + "h-$host\" ]; then\n"
           "    echo \"gridcoll emulate: no host '$host' in testbed " + plan.name + "\" >&2; exit 255\n"
           "fi\n"
           "d=\"" + plan.state_dir + "/hosts/$host\"\n"
           "if [ -f \"$d/pid\" ]; then   # a containerised host: join its cgroup, enter all its namespaces\n"
           "    [ -f \"$d/cgroup\" ] && echo $$ > \"$(cat \"$d/cgroup\")/cgroup.procs\"\n"
           "    exec nsenter --target \"$(cat \"$d/pid\")\" --pid --mount --net --uts -- /bin/sh -c \"$*\"\n"
           "fi\n"
           "exec nsenter --net=\"/run/netns/" + plan.prefix + "h-$host\" --uts=\"$uts\" -- /bin/sh -c \"$*\"\n";
}

std::string write_rsh_agent(const TestbedPlan& plan) {
    const std::string agent = plan.state_dir + "/rsh-agent";
    {
        std::ofstream f(agent + ".tmp", std::ios::trunc);
        f << rsh_agent_script(plan);
        if (!f.flush()) throw Error(agent + ": cannot write");
    }
    std::filesystem::rename(agent + ".tmp", agent);
    std::filesystem::permissions(agent, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                            std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                            std::filesystem::perms::others_exec);
    return agent;
}

std::vector<std::string> prepare_mpirun(const TestbedPlan& plan, const platform::Platform& p, const MpiOptions& opt,
                                        const std::vector<std::string>& command) {
    if (command.empty()) throw Error("nothing to run: give the command after --");
    const std::vector<std::string> hosts = platform::place_ranks(p, opt.ranks);
    if (hosts.empty()) throw Error("the placement gives no ranks");
    const std::string agent = write_rsh_agent(plan);
    const std::string hostfile = plan.state_dir + "/hostfile-" + std::to_string(getpid());
    {
        std::ofstream f(hostfile, std::ios::trunc);
        for (const auto& h : hosts) f << h << "\n";
        if (!f.flush()) throw Error(hostfile + ": cannot write");
    }
    std::vector<std::string> argv{"nsenter", "--net=/run/netns/" + plan.prefix + "mgmt", "--", "mpirun",
                                  "-n", std::to_string(hosts.size()),
                                  "--hostfile", hostfile,
                                  "--oversubscribe", "--bind-to", "none"};
    // The emulator runs as root: say so, rather than make the user export Open MPI's variables.
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    // A dilated testbed: the ranks' clocks divide by K (gridcoll/runtime/dilation.hpp).
    if (plan.dilation != 1) {
        char k[32];
        std::snprintf(k, sizeof k, "%.17g", plan.dilation);
        argv.insert(argv.end(), {"-x", std::string("GRIDCOLL_DILATION=") + k});
    }
    const std::vector<std::pair<std::string, std::string>> defaults{
        {"rmaps", "seq"},
        {"plm_rsh_agent", agent},
        {"plm_rsh_no_tree_spawn", "1"},
        {"oob_tcp_if_include", plan.mgmt_cidr},
        {"pml", "ob1"},
        {"btl", "self,vader,tcp"},
        {"btl_tcp_if_include", plan.data_cidr},
        {"mpi_yield_when_idle", opt.yield_when_idle ? "1" : "0"},
        launch::kUnaggregatedHelp};  // a WAN outage ends a run by MPI_Abort
    // The caller's --mca KEY VALUE replace a default of the same key.
    const auto mca = launch::mca_arguments(defaults, opt.extra_mca);
    argv.insert(argv.end(), mca.begin(), mca.end());
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

}  // namespace gridcoll::emulate
