// Checks the SimGrid XML generated from a platform description: generates it (simgrid_xml) to a
// temporary file, loads it with SimGrid's s4u API, and compares, for a deterministic sample of
// host pairs at every level (route_check.hpp), SimGrid's route latency and bottleneck bandwidth
// with what platforms/FORMAT.md says they are, within 0.1 %; also every host's speed and cores.
//
// Usage: gridcoll-route-check [--keep-xml FILE] [--per-zone N] PLATFORM.toml
// Prints one table row per pair; exit status 0 if all match, 1 on a mismatch, 2 when the
// description or the generated XML does not load. (One s4u Engine per process: one platform
// per run.)
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/platforms/route_check.hpp"

namespace gp = gridcoll::platform;

namespace {

constexpr double kTolerance = 1e-3;  // relative

bool close(double measured, double expected) {
    if (std::isinf(expected) || std::isinf(measured)) return measured == expected;
    return std::abs(measured - expected) <= kTolerance * std::abs(expected) + 1e-15;
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string us(double s) { return fmt("%.3f", s * 1e6); }
std::string mbps(double Bps) { return std::isinf(Bps) ? std::string("inf") : fmt("%.3f", Bps / 1e6); }

std::string pad(std::string s, std::size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

int usage(const char* prog) {
    std::cerr << "usage: " << prog << " [--keep-xml FILE] [--per-zone N] PLATFORM.toml\n";
    return 2;
}

struct Args {
    std::string toml, keep;
    int per_zone = 3;
};

bool parse_args(int argc, char** argv, Args& a) {
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "--keep-xml" && i + 1 < argc) {
            a.keep = argv[++i];
        } else if (s == "--per-zone" && i + 1 < argc) {
            a.per_zone = std::atoi(argv[++i]);
            if (a.per_zone < 1) return false;
        } else if (!s.empty() && s[0] != '-' && a.toml.empty()) {
            a.toml = s;
        } else {
            return false;
        }
    }
    return !a.toml.empty();
}

// The description's SimGrid XML written to `keep`, or to a temporary file; its path.
std::string write_xml(const gp::Platform& p, const std::string& keep, std::size_t pairs) {
    const std::string xml = gp::simgrid_xml(p);
    const std::string path =
        keep.empty()
            ? (std::filesystem::temp_directory_path() / ("gridcoll-route-check-" + std::to_string(::getpid()) + ".xml"))
                  .string()
            : keep;
    std::ofstream out(path);
    out << xml;
    if (!out.flush()) throw gridcoll::Error("cannot write " + path);
    std::cout << p.name << ": " << xml.size() << " bytes of SimGrid XML" << (keep.empty() ? "" : " in " + keep) << ", "
              << pairs << " host pairs\n";
    return path;
}

// One row per sampled pair, SimGrid's route against the expected one; the mismatches.
int compare_routes(const gp::Platform& p, const std::vector<gp::RouteSample>& samples, const gp::SimgridPlatform& sg) {
    int bad = 0;
    std::size_t wl = 6, wz = 5, wh = 4;  // column widths: level, zone, host
    for (const auto& s : samples) {
        wl = std::max(wl, s.level.size() + 1);
        wz = std::max(wz, s.zone.size() + 1);
        wh = std::max({wh, s.hosts.first.size() + 1, s.hosts.second.size() + 1});
    }
    std::cout << pad("level", wl) << pad("zone", wz) << pad("src", wh) << pad("dst", wh) << pad("lat us (exp)", 14)
              << pad("lat us (sg)", 14) << pad("bw MB/s (exp)", 15) << pad("bw MB/s (sg)", 15) << "\n";
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        const auto& m = sg.routes[i];
        const gp::RouteCost e = gp::expected_route(p, s.hosts.first, s.hosts.second);
        const bool ok = close(m.latency_s, e.latency_s) && close(m.bandwidth_Bps, e.bandwidth_Bps);
        std::cout << pad(s.level, wl) << pad(s.zone, wz) << pad(s.hosts.first, wh) << pad(s.hosts.second, wh)
                  << pad(us(e.latency_s), 14) << pad(us(m.latency_s), 14) << pad(mbps(e.bandwidth_Bps), 15)
                  << pad(mbps(m.bandwidth_Bps), 15) << (ok ? "ok" : "MISMATCH") << "\n";
        if (!ok) {
            ++bad;
            std::cout << "    expected: " << join(e.parts) << "\n    simgrid:  " << join(m.parts) << "\n";
        }
    }
    return bad;
}

// Every host, with its speed and cores; the mismatches. `described` gets the description's count.
int compare_hosts(const gp::Platform& p, const gp::SimgridPlatform& sg, std::size_t& described) {
    int bad = 0;
    std::map<std::string, const gp::SimgridHost*> by_name;
    for (const auto& h : sg.hosts) by_name[h.name] = &h;
    described = 0;
    for (const gp::Host& h : gp::hosts(p)) {
        ++described;
        const gp::Zone& leaf = *h.path.back();
        const auto it = by_name.find(h.name);
        if (it == by_name.end()) {
            std::cout << "MISSING host " << h.name << " in the SimGrid platform\n";
            ++bad;
        } else if (!close(it->second->speed_flops, leaf.speed_flops) || it->second->cores != leaf.cores) {
            std::cout << "MISMATCH host " << h.name << ": speed " << it->second->speed_flops << " cores "
                      << it->second->cores << ", expected " << leaf.speed_flops << " and " << leaf.cores << "\n";
            ++bad;
        }
    }
    if (sg.hosts.size() != described) {
        std::cout << "MISMATCH: SimGrid has " << sg.hosts.size() << " hosts, the description " << described << "\n";
        ++bad;
    }
    return bad;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse_args(argc, argv, args)) return usage(argv[0]);
    gp::Platform p;
    std::vector<gp::RouteSample> samples;
    std::string xml_path;
    try {
        p = gp::load_platform(args.toml);
        samples = gp::sample_route_pairs(p, args.per_zone);
        xml_path = write_xml(p, args.keep, samples.size());
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    std::vector<gp::HostPair> pairs;
    for (const auto& s : samples) pairs.push_back(s.hosts);
    gp::SimgridPlatform sg;
    char* sg_argv[] = {argv[0], nullptr};
    int sg_argc = 1;
    try {
        sg = gp::measure_simgrid_platform(&sg_argc, sg_argv, xml_path, pairs);
    } catch (const std::exception& e) {
        std::cerr << "error: SimGrid could not load the generated platform " << xml_path << ": " << e.what() << "\n";
        return 2;  // the XML is kept for inspection
    }
    if (args.keep.empty()) std::filesystem::remove(xml_path);

    int bad = 0;
    std::size_t described = 0;
    try {
        bad = compare_routes(p, samples, sg);  // the route table first, then the hosts
        bad += compare_hosts(p, sg, described);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    std::cout << (bad ? "FAILED: " + std::to_string(bad) + " mismatches"
                      : "all " + std::to_string(samples.size()) + " routes and " + std::to_string(described) +
                            " hosts match")
              << "\n";
    return bad ? 1 : 0;
}
