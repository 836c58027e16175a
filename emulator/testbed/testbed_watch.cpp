// The watch on runs across a testbed: how much data its hosts have received (read inside each
// host's network namespace), the default stall limit, and stopping what a stalled run leaves.
// See gridcoll/emulator/testbed_faults.hpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "gridcoll/emulator/testbed_faults.hpp"
#include "gridcoll/system/process.hpp"

namespace gridcoll::emulate {

namespace {

// Received bytes of every interface but lo and the management port, in the calling thread's
// network namespace.
std::uint64_t received_here() {
    std::ifstream dev("/proc/thread-self/net/dev");
    std::string line;
    std::uint64_t total = 0;
    while (std::getline(dev, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;  // the two header lines
        std::string name = line.substr(0, colon);
        name.erase(0, name.find_first_not_of(' '));
        if (name == "lo" || name == "mg0") continue;
        std::istringstream fields(line.substr(colon + 1));
        std::uint64_t bytes = 0;
        if (fields >> bytes) total += bytes;
    }
    return total;
}

}  // namespace

std::uint64_t hosts_received_bytes(const TestbedPlan& plan) {
    std::uint64_t total = 0;
    // A thread of its own enters the namespaces (setns changes only the calling thread's).
    std::thread reader([&] {
        for (const Netns& n : plan.ns) {
            if (n.kind != NsKind::Host) continue;
            const int fd = open(("/run/netns/" + n.name).c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            if (setns(fd, CLONE_NEWNET) == 0) total += received_here();
            close(fd);
        }
    });
    reader.join();
    return total;
}

double default_stall_s(const TestbedPlan& plan) {
    double rtt = 0;
    if (!plan.hosts.empty())
        for (const std::string& from : {plan.hosts.front(), plan.hosts.back()})
            for (const std::string& to : plan.hosts)
                if (to != from) rtt = std::max(rtt, 2 * path_spec(plan, from, to).delay_s);
    return 30 + 1000 * rtt;
}

void stop_host_processes(const TestbedPlan& plan) {
    for (const Netns& n : plan.ns) {
        if (n.kind != NsKind::Host) continue;
        // A containerised host keeps its init (and the unshare above it, in the machine's PID
        // namespace): only the processes of the host's own PID namespace but the init go.
        long init = 0;
        std::ifstream(plan.host_dir(n.label) + "/pid") >> init;
        struct stat own {};
        const bool contained = init > 1 && stat(("/proc/" + std::to_string(init) + "/ns/pid").c_str(), &own) == 0;
        for (pid_t p : pids_in_netns(n.name)) {
            struct stat st {};
            if (contained && (p == init || stat(("/proc/" + std::to_string(p) + "/ns/pid").c_str(), &st) != 0 ||
                              st.st_ino != own.st_ino))
                continue;
            sys::terminate(p, 2);
        }
    }
}

}  // namespace gridcoll::emulate
