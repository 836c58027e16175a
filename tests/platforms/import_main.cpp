// Checks topology_from_simgrid on platforms/xml/two-clusters.xml with its hostfiles, and that
// bad input (an unknown host, a malformed line, a second platform) is a clear gridcoll::Error.
// Usage: gridcoll-import-check <source dir>   (prints every mismatch; exit status 1 if any)
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <string>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/simgrid_import.hpp"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
    std::cout << (ok ? "ok    " : "FAIL  ") << what << "\n";
    if (!ok) ++failures;
}

// Runs `f`, expecting a gridcoll::Error whose message contains every one of `parts`.
void expect_error(const std::string& what, const std::function<void()>& f, std::initializer_list<std::string> parts) {
    try {
        f();
        check(false, what + ": no error");
    } catch (const gridcoll::Error& e) {
        bool all = true;
        for (const auto& p : parts) all = all && std::string(e.what()).find(p) != std::string::npos;
        check(all, what + ": \"" + e.what() + "\"");
    } catch (const std::exception& e) {
        check(false, what + ": not a gridcoll::Error: " + e.what());
    }
}

std::string write_temp(const std::string& name, const std::string& text) {
    const auto path =
        std::filesystem::temp_directory_path() / ("gridcoll-import-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(path) << text;
    return path.string();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " <gridcoll source dir>\n";
        return 2;
    }
    const std::string dir = std::string(argv[1]) + "/platforms/xml/";
    const std::string xml = dir + "two-clusters.xml";
    try {
        // Block placement: ranks 0-31 on c0, 32-63 on c1.
        const gridcoll::Topology t = gridcoll::topology_from_simgrid(xml, dir + "two-clusters.hosts");
        std::cout << "two-clusters.hosts:\n" << t.to_text().substr(0, 400) << "...\n";
        check(t.size() == 64, "block: 64 ranks (got " + std::to_string(t.size()) + ")");
        check(t.levels() == 3, "block: 3 levels (got " + std::to_string(t.levels()) + ")");
        bool c0 = true;
        for (int r = 1; r < 32; ++r) c0 = c0 && t.common_level(0, r) == 1;
        check(c0, "block: ranks 0-31 share their level-1 cluster and nothing deeper");
        check(t.common_level(0, 32) == 0, "block: ranks 0 and 32 share only level 0");
        check(t.members(0, 1).size() == 32 && t.members(32, 1).size() == 32, "block: two level-1 clusters of 32");
        check(t.members(5, 2).size() == 1, "block: one rank per node");
        check(t.level_name(2) == "node", "block: deepest level named node (got " + t.level_name(2) + ")");
        const auto wan = t.link(0);
        const auto lan = t.link(1);
        check(wan && wan->latency_s > 5e-3 && wan->latency_s < 5.1e-3 && wan->bandwidth_Bps == 12.5e6,
              "block: level-0 link = the WAN route (5 ms + LAN hops, 12.5 MBps)");
        check(lan && lan->latency_s > 40e-6 && lan->latency_s < 60e-6 && lan->bandwidth_Bps == 125e6,
              "block: level-1 link = the cluster route (2 x 25 us, 125 MBps)");
        for (int l = 0; l < t.levels(); ++l) {
            const auto k = t.link(l);
            std::cout << "      level " << l << " " << t.level_name(l) << ": "
                      << (k ? std::to_string(k->latency_s) + " s, " + std::to_string(k->bandwidth_Bps) + " B/s" : "-")
                      << "\n";
        }

        // Interleaved: rank 2i on c0, 2i+1 on c1.
        const gridcoll::Topology u = gridcoll::topology_from_simgrid(xml, dir + "two-clusters-interleaved.hosts");
        check(u.size() == 64, "interleaved: 64 ranks");
        check(u.common_level(0, 1) == 0, "interleaved: ranks 0 and 1 in different level-1 clusters");
        check(u.common_level(0, 2) == 1, "interleaved: ranks 0 and 2 share their level-1 cluster");
        check(u.members(1, 1).size() == 32 && u.members(1, 1).front() == 1 && u.members(1, 1).back() == 63,
              "interleaved: odd ranks form one level-1 cluster");

        // host:N lines: 16 ranks per host.
        const gridcoll::Topology x = gridcoll::topology_from_simgrid(xml, dir + "two-clusters-x16.hosts");
        check(x.size() == 1024, "x16: 1024 ranks (got " + std::to_string(x.size()) + ")");
        check(x.common_level(0, 15) == 2 && x.common_level(0, 16) == 1 && x.common_level(0, 512) == 0,
              "x16: ranks 0-15 share a node, 16 is on the next node, 512 on the other cluster");

        // Comments, blank lines, spaces.
        const std::string commented =
            write_temp("commented.hosts", "# two ranks on c1-3\n\n  c1-3:2  # trailing\nc0-0\n");
        const gridcoll::Topology y = gridcoll::topology_from_simgrid(xml, commented);
        check(y.size() == 3 && y.common_level(0, 1) == 2 && y.common_level(1, 2) == 0,
              "comments and blank lines are skipped, host:N with spaces");
        std::filesystem::remove(commented);
    } catch (const std::exception& e) {
        check(false, std::string("unexpected error: ") + e.what());
    }

    // Bad input.
    const std::string unknown = write_temp("unknown.hosts", "c0-0\n# comment\nc0-1\nnosuchhost\n");
    expect_error("unknown host", [&] { gridcoll::topology_from_simgrid(xml, unknown); },
                 {unknown + ":4:", "unknown host \"nosuchhost\"", "two-clusters.xml"});
    const std::string badcount = write_temp("badcount.hosts", "c0-0:x\n");
    expect_error("bad host:N", [&] { gridcoll::topology_from_simgrid(xml, badcount); }, {badcount + ":1:", "c0-0:x"});
    const std::string zero = write_temp("zero.hosts", "c0-0\nc0-1:0\n");
    expect_error("host:0", [&] { gridcoll::topology_from_simgrid(xml, zero); }, {zero + ":2:"});
    const std::string empty = write_temp("empty.hosts", "# nothing\n\n");
    expect_error("empty hostfile", [&] { gridcoll::topology_from_simgrid(xml, empty); }, {empty, "no host"});
    expect_error("missing hostfile", [&] { gridcoll::topology_from_simgrid(xml, dir + "missing.hosts"); },
                 {"hostfile: cannot read", "missing.hosts", "no such file"});
    expect_error("second platform",
                 [&] { gridcoll::topology_from_simgrid(dir + "other.xml", dir + "two-clusters.hosts"); },
                 {"other.xml", "second SimGrid platform"});
    for (const auto& p : {unknown, badcount, zero, empty}) std::filesystem::remove(p);

    std::cout << (failures == 0 ? "all checks passed\n" : std::to_string(failures) + " check(s) failed\n");
    return failures == 0 ? 0 : 1;
}
