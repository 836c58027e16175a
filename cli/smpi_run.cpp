#include "smpi_run.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gridcoll/error.hpp"
#include "gridcoll/platform.hpp"
#include "process.hpp"

namespace gridcoll::cli {

namespace {

void require_readable(const std::string& path, const char* what) {
    std::ifstream f(path);
    if (!f) throw Error(std::string(what) + " '" + path + "' cannot be read");
}

}  // namespace

std::size_t count_hosts(const std::string& hostfile) {
    require_readable(hostfile, "hostfile");
    std::ifstream f(hostfile);
    std::string line;
    std::size_t n = 0, lineno = 0;
    while (std::getline(f, line)) {
        ++lineno;
        if (line.empty() || line[0] == '#') continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) {
            ++n;
            continue;
        }
        const std::string count = line.substr(colon + 1);
        if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos)
            throw Error(hostfile + ":" + std::to_string(lineno) + ": bad slot count '" + count + "' (expected host or host:N)");
        n += std::stoul(count);
    }
    if (n == 0) throw Error("hostfile '" + hostfile + "' lists no hosts");
    return n;
}

SmpiPlatform prepare_smpi_platform(const std::string& platform_path, const std::string& hostfile, int ranks) {
    require_readable(platform_path, "platform file");
    SmpiPlatform out;
    const std::string ext = std::filesystem::path(platform_path).extension().string();
    if (ext == ".toml") {
        const platform::Platform p = platform::load_platform(platform_path);
        if (!hostfile.empty()) throw Error("--hostfile is for SimGrid XML platforms; a .toml description places ranks itself");
        const std::string hosts = platform::hostfile(p, ranks);
        out.ranks = ranks > 0 ? ranks : static_cast<int>(std::count(hosts.begin(), hosts.end(), '\n'));
        out.scratch = std::make_unique<ScratchDir>("gridcoll-sim-");
        out.xml = out.scratch->path() + "/platform.xml";
        out.hostfile = out.scratch->path() + "/hosts";
        out.rank_map = out.scratch->path() + "/ranks";
        write_output(out.xml, platform::simgrid_xml(p));
        write_output(out.hostfile, hosts);
        write_output(out.rank_map, platform::topology(p, out.ranks).to_text());
        return out;
    }
    if (ext != ".xml")
        throw Error("platform '" + platform_path + "' is neither a description (.toml) nor a SimGrid XML file (.xml)");
    if (hostfile.empty()) throw Error("a SimGrid XML platform needs --hostfile");
    if (ranks <= 0) throw Error("a SimGrid XML platform needs --ranks");
    count_hosts(hostfile);
    out.xml = platform_path;
    out.hostfile = hostfile;
    out.ranks = ranks;
    return out;
}

std::vector<std::string> smpirun_command(const SmpiPlatform& p, const SmpiSettings& s) {
    std::vector<std::string> argv = {"smpirun", "-platform", p.xml, "-hostfile", p.hostfile, "-np", std::to_string(p.ranks)};
    if (s.no_privatize) argv.push_back("-no-privatize");
    argv.push_back("--cfg=smpi/simulate-computation:no");
    // ideal: time = latency + bytes / bandwidth with max-min sharing (SimGrid's CM02), what a
    // platform description's numbers mean. smpi: SimGrid's default SMPI model, whose latency and
    // bandwidth factors were calibrated on one real cluster (e.g. latency x11.6 above 64 KiB).
    if (s.network_model == "ideal") argv.push_back("--cfg=network/model:CM02");
    argv.push_back("--cfg=smpi/host-speed:1Gf");
    if (!s.verbose) argv.push_back("--log=root.thres:warning");
    for (const auto& c : s.cfg) argv.push_back("--cfg=" + c);
    return argv;
}

std::string sibling_program(const std::string& name, const std::string& override_path) {
    const std::string path = override_path.empty() ? self_dir() + "/" + name : override_path;
    require_readable(path, "program");
    return path;
}

}  // namespace gridcoll::cli
