// The Topology of a user's SimGrid XML platform, from its zone tree (see simgrid_import.hpp).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/platforms/simgrid_import.hpp"

namespace gridcoll {
namespace {

namespace s4u = simgrid::s4u;

// One line of a hostfile, for error messages.
struct HostLine {
    std::string host;
    int count = 1;
    int line = 0;
};

std::vector<HostLine> read_hostfile(const std::string& path) {
    std::string text;
    try {
        text = read_text_file(path);  // a missing or unreadable file named; no byte-order mark
    } catch (const Error& e) {
        throw Error("hostfile: " + std::string(e.what()));
    }
    std::istringstream in(text);
    std::vector<HostLine> out;
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
        ++line;
        std::string_view text = raw;
        if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
        text = trim(text);
        if (text.empty()) continue;
        const std::string where = path + ":" + std::to_string(line) + ": ";
        HostLine entry;
        entry.line = line;
        if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
            const std::string_view count = trim(text.substr(colon + 1));
            int n = 0;
            const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
            if (count.empty() || ec != std::errc() || end != count.data() + count.size() || n < 1)
                throw Error(where + "bad rank count \"" + std::string(count) + "\" in \"" + std::string(text) +
                            "\" (expected host or host:N with N >= 1)");
            entry.count = n;
            text = trim(text.substr(0, colon));
        }
        if (text.empty() || text.find_first_of(" \t") != std::string_view::npos)
            throw Error(where + "bad host name \"" + std::string(text) + "\" (expected one host name per line)");
        entry.host = std::string(text);
        out.push_back(std::move(entry));
    }
    if (out.empty()) throw Error(path + ": hostfile lists no host");
    return out;
}

// The Engine, created once per process, and the one platform loaded into it.
s4u::Engine& engine_with_platform(const std::string& xml_path) {
    static std::string loaded;  // the platform this process has loaded ("" = none yet)
    if (!loaded.empty()) {
        if (loaded != xml_path)
            throw Error(xml_path + ": cannot load a second SimGrid platform in this process (\"" + loaded +
                        "\" is loaded; SimGrid allows one Engine and one platform per process)");
        return *s4u::Engine::get_instance();
    }
    if (!std::ifstream(xml_path)) throw Error(xml_path + ": cannot open SimGrid platform");
    if (!s4u::Engine::has_instance()) {
        // The Engine keeps pointers into argv: static storage, and never destroyed.
        static char arg0[] = "gridcoll-import";
        static char arg1[] = "--log=root.thres:critical";
        static char* argv[] = {arg0, arg1, nullptr};
        static int argc = 2;
        new s4u::Engine(&argc, argv);
    }
    s4u::Engine& e = *s4u::Engine::get_instance();
    try {
        e.load_platform(xml_path);
        e.seal_platform();
    } catch (const std::exception& ex) {
        throw Error(xml_path + ": cannot load SimGrid platform: " + ex.what());
    }
    loaded = xml_path;
    return e;
}

// The zones from the root down to the one holding `host`. (NetZone::get_parent() of the root
// zone is not nullptr in SimGrid 3.32 but a crash: stop at the root.)
std::vector<const s4u::NetZone*> zone_path(const s4u::Host* host, const s4u::NetZone* root) {
    std::vector<const s4u::NetZone*> path;
    for (const s4u::NetZone* z = host->get_englobing_zone(); z != nullptr; z = z->get_parent()) {
        path.push_back(z);
        if (z == root) break;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

// The route between two hosts: summed latency, narrowest link's bandwidth.
LevelLink route(const s4u::Host* a, const s4u::Host* b) {
    std::vector<s4u::Link*> links;
    double latency = 0;
    a->route_to(b, links, &latency);
    double bandwidth = 0;
    for (const s4u::Link* link : links)
        bandwidth = bandwidth == 0 ? link->get_bandwidth() : std::min(bandwidth, link->get_bandwidth());
    return LevelLink{latency, bandwidth};
}

bool same(const LevelLink& a, const LevelLink& b) {
    const auto close = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
    return close(a.latency_s, b.latency_s) && close(a.bandwidth_Bps, b.bandwidth_Bps);
}

// Pair links (Topology::set_pair_link): inside each cluster of level l, the route between the
// first ranks of every two of its member clusters of level l + 1; set where they differ within
// the cluster (a WAN whose site pairs have their own links), none where they all agree. Clusters
// with more than kMaxPairMembers members are left to the level link (their routes, quadratic in
// number, are not read).
constexpr std::size_t kMaxPairMembers = 256;

void set_pair_links(Topology& t, const std::vector<std::vector<int>>& clusters,
                    const std::vector<const s4u::Host*>& rank_host) {
    for (int l = 0; l + 1 < t.levels(); ++l) {
        // parent cluster -> member cluster -> its first rank
        std::map<int, std::map<int, std::size_t>> members;
        for (std::size_t r = 0; r < clusters.size(); ++r) {
            const auto& c = clusters[r];
            if (c.size() > static_cast<std::size_t>(l) + 1)
                members[c[static_cast<std::size_t>(l)]].try_emplace(c[static_cast<std::size_t>(l) + 1], r);
        }
        for (const auto& [parent, kids] : members) {
            if (kids.size() < 2 || kids.size() > kMaxPairMembers) continue;
            std::vector<std::tuple<int, int, LevelLink>> pairs;
            bool differ = false;
            for (auto a = kids.begin(); a != kids.end(); ++a)
                for (auto b = std::next(a); b != kids.end(); ++b) {
                    const s4u::Host* ha = rank_host[a->second];
                    const s4u::Host* hb = rank_host[b->second];
                    if (ha == hb) continue;
                    pairs.emplace_back(a->first, b->first, route(ha, hb));
                    differ = differ || !same(std::get<2>(pairs.front()), std::get<2>(pairs.back()));
                }
            if (differ)
                for (const auto& [a, b, link] : pairs)
                    if (link.bandwidth_Bps > 0) t.set_pair_link(l, a, b, link);
        }
    }
}

// Cluster links (Topology::set_cluster_link): for each cluster of level l, the route between its
// first two ranks that part below l (on different hosts; at a rank's node level, two ranks of
// its host: the loopback); set where they differ between the level's clusters (zones of one
// depth with links of their own), none where they all agree.
void set_cluster_links(Topology& t, const std::vector<std::vector<int>>& clusters,
                       const std::vector<const s4u::Host*>& rank_host) {
    for (int l = 0; l < t.levels(); ++l) {
        const auto L = static_cast<std::size_t>(l);
        std::map<int, std::size_t> first;  // cluster -> its first rank
        std::map<int, LevelLink> routes;   // cluster -> its route
        for (std::size_t r = 0; r < clusters.size(); ++r) {
            const auto& c = clusters[r];
            if (c.size() <= L) continue;
            const auto [it, fresh] = first.try_emplace(c[L], r);
            if (fresh || routes.count(c[L])) continue;
            const auto& a = clusters[it->second];
            const bool node = a.size() == L + 1 && c.size() == L + 1;  // both at their host's level
            const bool part = node || (a.size() > L + 1 && c.size() > L + 1 && a[L + 1] != c[L + 1] &&
                                       rank_host[it->second] != rank_host[r]);
            if (part) routes.emplace(c[L], route(rank_host[it->second], rank_host[r]));
        }
        bool differ = false;
        for (const auto& [id, link] : routes) differ = differ || !same(link, routes.begin()->second);
        if (differ)
            for (const auto& [id, link] : routes)
                if (link.bandwidth_Bps > 0) t.set_cluster_link(l, id, link);
    }
}

}  // namespace

Topology topology_from_simgrid(const std::string& xml_path, const std::string& hostfile_path) {
    const std::vector<HostLine> lines = read_hostfile(hostfile_path);
    const s4u::NetZone* root = engine_with_platform(xml_path).get_netzone_root();

    // The host of every rank, checked against the platform.
    std::vector<const s4u::Host*> rank_host;
    for (const HostLine& l : lines) {
        const s4u::Host* h = s4u::Host::by_name_or_null(l.host);
        if (h == nullptr)
            throw Error(hostfile_path + ":" + std::to_string(l.line) + ": unknown host \"" + l.host +
                        "\" (not in SimGrid platform " + xml_path + ")");
        if (rank_host.size() + static_cast<std::size_t>(l.count) >
            static_cast<std::size_t>(std::numeric_limits<int>::max()))
            throw Error(hostfile_path + ":" + std::to_string(l.line) + ": too many ranks");
        rank_host.insert(rank_host.end(), static_cast<std::size_t>(l.count), h);
    }

    // Cluster ids: per level, one id per distinct zone (or host, for the node level), numbered
    // in order of first appearance. Zones and hosts share a level's id space, so a host at
    // level l (a shallow rank's node) never shares an id with a zone at level l.
    std::vector<std::map<const void*, int>> ids;
    std::vector<std::string> names;
    std::vector<std::vector<int>> clusters;
    clusters.reserve(rank_host.size());
    std::vector<bool> named_by_zone;
    auto id_at = [&](std::size_t level, const void* key, const std::string& name, bool zone) {
        if (ids.size() <= level) {
            ids.resize(level + 1);
            names.resize(level + 1);
            named_by_zone.resize(level + 1);
        }
        if (names[level].empty() || (zone && !named_by_zone[level])) {
            names[level] = name;
            named_by_zone[level] = zone;
        }
        return ids[level].try_emplace(key, static_cast<int>(ids[level].size())).first->second;
    };
    for (const s4u::Host* h : rank_host) {
        const auto path = zone_path(h, root);
        std::vector<int> c;
        for (std::size_t l = 0; l < path.size(); ++l) {
            const char* prop = path[l]->get_property("level");
            c.push_back(id_at(l, path[l],
                              prop != nullptr && *prop != 0 ? std::string(prop) : "level" + std::to_string(l), true));
        }
        c.push_back(id_at(path.size(), h, "node", false));
        clusters.push_back(std::move(c));
    }

    // Per level l, the route between the first rank of a level-l cluster and the first later
    // member of that cluster that parts from it below l (one pass: O(ranks x levels)).
    std::vector<std::optional<LevelLink>> links(names.size());
    std::vector<std::map<int, std::size_t>> first_of(names.size());  // level -> cluster -> rank
    for (std::size_t b = 0; b < clusters.size(); ++b) {
        const std::vector<int>& cb = clusters[b];
        for (std::size_t l = 0; l < cb.size(); ++l) {
            const std::size_t a = first_of[l].try_emplace(cb[l], b).first->second;
            if (a == b || links[l]) continue;
            const std::vector<int>& ca = clusters[a];
            const bool part_below = ca.size() == l + 1 || cb.size() == l + 1 || ca[l + 1] != cb[l + 1];
            const s4u::Host* ha = rank_host[a];
            const s4u::Host* hb = rank_host[b];
            // (Two ranks of one host share only its loopback, if it has one: the node level's link.)
            if (!part_below || (ha == hb && l + 1 < cb.size())) continue;
            const LevelLink r = route(ha, hb);
            if (ha != hb || r.bandwidth_Bps > 0) links[l] = r;
        }
    }
    Topology t(clusters, std::move(names), std::move(links));
    set_pair_links(t, clusters, rank_host);
    set_cluster_links(t, clusters, rank_host);
    return t;
}

}  // namespace gridcoll
