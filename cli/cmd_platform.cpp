// gridcoll platform show|xml|hosts|ranks|validate FILE: inspect a platform description and
// generate what other tools need from it. Output files are written whole or not at all.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gridcoll/algorithms/tree_packing.hpp"
#include "backend_options.hpp"
#include "commands.hpp"
#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"
#include "gridcoll/system/files.hpp"
#ifdef GRIDCOLL_HAVE_SIMGRID_IMPORT
#include "gridcoll/platforms/simgrid_import.hpp"
#endif

namespace gridcoll::cli {

namespace {

namespace pf = gridcoll::platform;

const char* interconnect_name(pf::Interconnect t) {
    switch (t) {
        case pf::Interconnect::Switched: return "switched";
        case pf::Interconnect::Shared: return "shared";
        case pf::Interconnect::Star: return "star";
        case pf::Interconnect::Mesh: return "mesh";
        case pf::Interconnect::Ring: return "ring";
        case pf::Interconnect::Explicit: return "explicit";
    }
    return "?";
}

std::string link_str(const pf::LinkSpec& l) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%g us, %g MB/s", l.latency_s * 1e6, l.bandwidth_Bps / 1e6);
    std::string s = buf;
    if (l.loss > 0) s += ", loss " + std::to_string(l.loss);
    if (l.jitter_s > 0) s += ", jitter " + std::to_string(l.jitter_s * 1e6) + " us";
    return s;
}

void show_zone(const pf::Zone& z, int indent) {
    // An explicit zone without a `link` has only its listed links (below).
    const bool own_link = z.network != pf::Interconnect::Explicit || z.link.bandwidth_Bps > 0;
    std::printf("%*s%s [%s] %s%s", indent, "", z.name.c_str(), z.level.c_str(), interconnect_name(z.network),
                own_link ? (": " + link_str(z.link)).c_str() : " (the links below)");
    if (z.backbone) std::printf("; backbone %s", link_str(*z.backbone).c_str());
    if (z.gateway)
        std::printf("; gateway %s (+%g us, %g MB/s)", z.gateway->node.empty() ? "router" : z.gateway->node.c_str(),
                    z.gateway->overhead_s * 1e6, z.gateway->bandwidth_Bps / 1e6);
    if (z.is_leaf())
        std::printf("; %d node%s x %d core%s at %g Gflop/s", z.nodes, z.nodes == 1 ? "" : "s", z.cores, z.cores == 1 ? "" : "s",
                    z.speed_flops / 1e9);
    std::printf("\n");
    for (const auto& l : z.links) std::printf("%*s  link %s <-> %s: %s\n", indent, "", l.a.c_str(), l.b.c_str(), link_str(l.link).c_str());
    for (const auto& c : z.children) show_zone(c, indent + 2);
}

int show(const std::string& file, int ranks) {
    const pf::Platform p = pf::load_platform(file);
    const auto hs = pf::hosts(p);
    long long cores = 0;
    for (const auto& h : hs) cores += h.cores;
    const Topology t = pf::topology(p, ranks);
    std::printf("%s — %s\n", p.name.c_str(), p.description.c_str());
    if (!p.source.empty()) std::printf("source: %s\n", p.source.c_str());
    std::printf("%zu hosts, %lld cores, %d ranks placed\n\n", hs.size(), cores, t.size());
    show_zone(p.root, 0);
    std::printf("\nlevels (Topology):");
    for (int l = 0; l < t.levels(); ++l) std::printf(" %d=%s", l, t.level_name(l).c_str());
    std::printf("\n");
    // The WAN graph: bounds and the packed methods' trees for the figures' sizes (issue 33).
    for (int l : site_levels(t)) {
        if (l == 0) continue;  // level 0 holds everything: its clusters are not sites
        std::printf("\n%s", describe_site_packing(t, l, 4u << 20, 64u << 10, 0).c_str());
    }
    return 0;
}

}  // namespace

Runner add_platform(CLI::App& app) {
    struct Opts {
        std::string action, file, output, hostfile;
        int ranks = 0;
        std::vector<std::string> files;
    };
    auto o = std::make_shared<Opts>();
    app.add_option("action", o->action, "show | xml | hosts | ranks | validate")
        ->required()
        ->check(CLI::IsMember({"show", "xml", "hosts", "ranks", "validate"}));
    add_platform_files(app, o->files, "platform description(s) (.toml; ranks: also SimGrid XML)");
    app.add_option("-n,--ranks", o->ranks, "number of ranks to place (default: the description's)")->check(kNonNegative);
    app.add_option("-o,--output", o->output, "write to this file instead of standard output");
    app.add_option("-H,--hostfile", o->hostfile, "ranks of a SimGrid XML platform: its hostfile (host or host:N per line)");
    return [o]() -> int {
        if (o->files.empty()) throw Error("'platform " + o->action + "' needs a platform (FILE or -p FILE)");
        if (o->action == "validate") {
            int bad = 0;
            for (const auto& f : o->files) {
                try {
                    const pf::Platform p = pf::load_platform(f);
                    const Topology t = pf::topology(p, o->ranks);
                    std::printf("OK %s: %s, %d ranks, %d levels\n", f.c_str(), p.name.c_str(), t.size(), t.levels());
                } catch (const Error& e) {
                    std::fprintf(stderr, "INVALID %s\n", e.what());
                    ++bad;
                }
            }
            return bad ? 1 : 0;
        }
        if (o->files.empty()) throw Error("'platform " + o->action + "' needs a platform (FILE or -p FILE)");
        if (o->files.size() != 1) throw Error("'platform " + o->action + "' takes exactly one file");
        const std::string& f = o->files.front();
        if (f.size() > 4 && f.compare(f.size() - 4, 4, ".xml") == 0) {
            // A user's SimGrid platform: only its rank map, derived from the zone tree.
            if (o->action != "ranks") throw Error("'platform " + o->action + "' takes a description (.toml); for SimGrid XML use 'platform ranks FILE.xml --hostfile HOSTS'");
            if (o->hostfile.empty()) throw Error("'platform ranks " + f + "' needs --hostfile");
#ifdef GRIDCOLL_HAVE_SIMGRID_IMPORT
            sys::write_output(o->output, topology_from_simgrid(f, o->hostfile).to_text());
            return 0;
#else
            throw Error("this gridcoll was built without SimGrid: cannot read " + f);
#endif
        }
        if (o->action == "show") return show(f, o->ranks);
        const pf::Platform p = pf::load_platform(f);
        std::string text;
        if (o->action == "xml") text = pf::simgrid_xml(p);
        else if (o->action == "hosts") text = pf::hostfile(p, o->ranks);
        else text = pf::topology(p, o->ranks).to_text();
        sys::write_output(o->output, text);
        return 0;
    };
}

}  // namespace gridcoll::cli
