#include "gridcoll/platforms/sim_platform.hpp"

#include <filesystem>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/text.hpp"
#ifdef GRIDCOLL_HAVE_SIMGRID_IMPORT
#include "gridcoll/platforms/simgrid_import.hpp"
#endif

namespace gridcoll::platform {

int count_hostfile_slots(const std::string& hostfile) {
    const std::string text = read_text_file(hostfile);
    int n = 0, lineno = 0;
    for (const std::string_view raw : split_lines(text)) {
        ++lineno;
        const std::string_view line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            ++n;
            continue;
        }
        const std::string count(line.substr(colon + 1));
        if (count.empty() || count.size() > 6 || count.find_first_not_of("0123456789") != std::string::npos)
            throw Error(hostfile + ":" + std::to_string(lineno) + ": bad slot count '" + count + "' (expected host or host:N)");
        n += std::stoi(count);
    }
    if (n == 0) throw Error("hostfile '" + hostfile + "' lists no hosts");
    return n;
}

SimPlatform load_sim_platform(const std::string& path, const std::string& hostfile, int ranks, const std::string& placement) {
    if (ranks < 0) throw Error("--ranks must be positive (got " + std::to_string(ranks) + ")");
    read_text_file(path);  // a clear error for a missing or unreadable file
    SimPlatform out;
    out.path = path;
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext == ".toml") {
        if (!hostfile.empty()) throw Error("--hostfile is for SimGrid XML platforms; a .toml description places ranks itself");
        out.description = platform::load_platform(path);
        if (placement == "block") out.description->placement.policy = platform::PlacementPolicy::Block;
        else if (placement == "round-robin") out.description->placement.policy = platform::PlacementPolicy::RoundRobin;
        else if (!placement.empty()) throw Error("placement must be block or round-robin (got '" + placement + "')");
        const Topology all = platform::topology(*out.description, ranks);
        out.ranks = all.size();
        out.topology = std::make_shared<const Topology>(all);
        return out;
    }
    if (ext != ".xml") throw Error("platform '" + path + "' is neither a description (.toml) nor a SimGrid XML file (.xml)");
    if (hostfile.empty()) throw Error("a SimGrid XML platform needs --hostfile");
    if (!placement.empty())
        throw Error("a placement is for descriptions (.toml); '" + path + "' places ranks by its hostfile");
    const int slots = count_hostfile_slots(hostfile);
    out.hostfile = hostfile;
    out.ranks = ranks > 0 ? ranks : slots;
#ifdef GRIDCOLL_HAVE_SIMGRID_IMPORT
    const Topology all = topology_from_simgrid(path, hostfile);
    if (out.ranks > all.size())
        throw Error("--ranks " + std::to_string(out.ranks) + " exceeds the " + std::to_string(all.size()) + " slots of hostfile '" +
                    hostfile + "'");
    out.topology = std::make_shared<const Topology>(all.first(out.ranks));
#endif
    return out;
}

}  // namespace gridcoll::platform
