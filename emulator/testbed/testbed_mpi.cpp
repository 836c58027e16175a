#include "testbed_mpi.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "gridcoll/collective.hpp"

namespace gridcoll::emulate {

std::string rsh_agent_script(const Plan& plan) {
    return "#!/bin/sh\n"
           "# Open MPI's rsh agent for gridcoll testbed '" + plan.name + "': runs the command given by mpirun\n"
           "# on a testbed host, i.e. in that host's network and UTS namespaces (written by gridcoll emulate).\n"
           "while [ \"${1#-}\" != \"$1\" ]; do shift; done   # options meant for ssh\n"
           "host=$1; shift\n"
           "uts=\"" + plan.state_dir + "/uts/$host\"\n"
           "if [ ! -e \"$uts\" ] || [ ! -e \"/run/netns/" + plan.prefix + "h-$host\" ]; then\n"
           "    echo \"gridcoll emulate: no host '$host' in testbed " + plan.name + "\" >&2; exit 255\n"
           "fi\n"
           "exec nsenter --net=\"/run/netns/" + plan.prefix + "h-$host\" --uts=\"$uts\" -- /bin/sh -c \"$*\"\n";
}

std::vector<std::string> prepare_mpirun(const Plan& plan, const platform::Platform& p, const MpiOptions& opt,
                                        const std::vector<std::string>& command) {
    if (command.empty()) throw Error("nothing to run: give the command after --");
    const std::vector<std::string> hosts = platform::place_ranks(p, opt.ranks);
    if (hosts.empty()) throw Error("the placement gives no ranks");
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
    const std::string hostfile = plan.state_dir + "/hostfile-" + std::to_string(getpid());
    {
        std::ofstream f(hostfile, std::ios::trunc);
        for (const auto& h : hosts) f << h << "\n";
        if (!f.flush()) throw Error(hostfile + ": cannot write");
    }
    std::vector<std::string> argv{"nsenter", "--net=/run/netns/" + plan.prefix + "mgmt", "--", "mpirun",
                                  "-n", std::to_string(hosts.size()),
                                  "--hostfile", hostfile,
                                  "--mca", "rmaps", "seq",
                                  "--oversubscribe", "--bind-to", "none",
                                  "--mca", "plm_rsh_agent", agent,
                                  "--mca", "plm_rsh_no_tree_spawn", "1",
                                  "--mca", "oob_tcp_if_include", plan.mgmt_cidr,
                                  "--mca", "pml", "ob1",
                                  "--mca", "btl", "self,vader,tcp",
                                  "--mca", "btl_tcp_if_include", plan.data_cidr,
                                  "--mca", "mpi_yield_when_idle", opt.yield_when_idle ? "1" : "0"};
    argv.insert(argv.end(), opt.extra_mca.begin(), opt.extra_mca.end());
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

}  // namespace gridcoll::emulate
