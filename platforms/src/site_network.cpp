// The network between the zones of one depth — a Topology level's sites — as the SimGrid XML
// generator (simgrid_xml.cpp) routes it: the same links, latencies, bandwidths and paths, so the
// tree packing plans with exactly what SMPI simulates (gridcoll/algorithms/site_network.hpp).
//
// A route from site A to site B climbs from A to the group G where their paths meet, crosses G's
// network between the two members holding them, and climbs down to B. Leaving a zone X for its
// parent P: X's gateway link (if any), then P's network from X to P's edge; at G: the gateways of
// the two members and the network between them; entering: the mirror. Vertices: the sites, and
// named points — MP:X (zone X's place in its parent's network), SW:P (a switch), SWI:P / SWO:P
// (either side of a switch's backbone), R:P (the edge router of a mesh, ring or explicit group).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "gridcoll/platforms/platform.hpp"
#include "simgrid_xml_parts.hpp"
#include "site_network_build.hpp"

namespace gridcoll::platform {

namespace {

using namespace xml;

// Above this many sites a level gets no network (routes grow as the square).
constexpr std::size_t kMaxSites = 512;

struct SiteZone {
    const Zone* zone;
    std::vector<const Zone*> path;  // root .. zone
};

void collect(const Zone& z, int depth, int want, std::vector<const Zone*>& path, std::vector<SiteZone>& out) {
    path.push_back(&z);
    if (depth == want || z.is_leaf()) {
        out.push_back({&z, path});  // a leaf above `want` stands for itself there
    } else {
        for (const Zone& c : z.children) collect(c, depth + 1, want, path, out);
    }
    path.pop_back();
}

bool switched(const Zone& z) {
    return z.network == Interconnect::Switched || z.network == Interconnect::Star || z.network == Interconnect::Shared;
}
bool has_backbone(const Zone& z) {
    return z.network == Interconnect::Shared || (z.network == Interconnect::Switched && z.backbone.has_value());
}

class NetBuilder {
public:
    NetBuilder(const Zone& root, int depth) {
        std::vector<const Zone*> path;
        collect(root, 0, depth, path, sites_);
        for (std::size_t i = 0; i < sites_.size(); ++i) site_id_[sites_[i].zone] = static_cast<int>(i);
    }

    std::size_t sites() const { return sites_.size(); }

    SiteNetwork build() {
        for (std::size_t a = 0; a < sites_.size(); ++a)
            for (std::size_t b = 0; b < sites_.size(); ++b)
                if (a != b) net_.routes[{static_cast<int>(a), static_cast<int>(b)}] = route(sites_[a], sites_[b]);
        return std::move(net_);
    }

private:
    int point(const std::string& name) {
        const auto [it, fresh] = points_.try_emplace(name, -1 - static_cast<int>(points_.size()));
        return it->second;
    }
    // Where a zone is left and entered: a site is its own vertex; a group its switch or router.
    int exit_of(const Zone& x) {
        if (auto it = site_id_.find(&x); it != site_id_.end()) return it->second;
        if (!switched(x)) return point("R:" + x.name);
        return point((has_backbone(x) ? "SWO:" : "SW:") + x.name);
    }
    int entry_of(const Zone& x) {
        if (auto it = site_id_.find(&x); it != site_id_.end()) return it->second;
        if (!switched(x)) return point("R:" + x.name);
        return point((has_backbone(x) ? "SWI:" : "SW:") + x.name);
    }
    // Zone x's place in its parent's network; without a gateway joined to x at no cost.
    int member_point(const Zone& x) {
        const int mp = point("MP:" + x.name);
        if (!x.gateway && joined_.insert(&x).second) {
            net_.joins.emplace_back(exit_of(x), mp);
            net_.joins.emplace_back(mp, entry_of(x));
        }
        return mp;
    }

    // The directed link (`id`, `dir`), made once; a shared medium (Dir::None) serves both ways.
    int link(const std::string& id, Dir dir, int from, int to, double lat, double bw) {
        const std::string key = id + (dir == Dir::Up ? "/up" : dir == Dir::Down ? "/down" : "");
        const auto [it, fresh] = links_.try_emplace(key, static_cast<int>(net_.links.size()));
        if (fresh) net_.links.push_back(NetLink{from, to, lat, bw, key});
        return it->second;
    }

    void gateway(const Zone& x, bool up, std::vector<int>& out) {
        if (!x.gateway) return;
        const double bw = x.gateway->bandwidth_Bps > 0 ? x.gateway->bandwidth_Bps : kUnlimitedBps;
        const int mp = member_point(x);
        out.push_back(up ? link(x.name + ":gateway", Dir::Up, exit_of(x), mp, x.gateway->overhead_s, bw)
                         : link(x.name + ":gateway", Dir::Down, mp, entry_of(x), x.gateway->overhead_s, bw));
    }

    // P's network from its member i to member j (-1: P's edge), as the XML generator's middle().
    void middle(const Zone& p, int i, int j, std::vector<int>& out) {
        const auto& kids = p.children;
        if (switched(p)) {
            const double lat = p.network == Interconnect::Switched && p.backbone ? (p.link.latency_s + p.backbone->latency_s) / 2
                                                                                : p.link.latency_s / 2;
            const int in = entry_of(p), outp = exit_of(p);
            if (i >= 0) out.push_back(link(kids[i].name + ":uplink", Dir::Up, member_point(kids[i]), in, lat, p.link.bandwidth_Bps));
            if (has_backbone(p))
                out.push_back(link(p.name + ":backbone", Dir::None, in, outp, 0,
                                   p.backbone ? p.backbone->bandwidth_Bps : p.link.bandwidth_Bps));
            if (j >= 0) out.push_back(link(kids[j].name + ":uplink", Dir::Down, outp, member_point(kids[j]), lat, p.link.bandwidth_Bps));
            return;
        }
        const double edge_bw = p.link.bandwidth_Bps > 0 ? p.link.bandwidth_Bps : kUnlimitedBps;
        if (i < 0 || j < 0) {
            const Zone& m = kids[i < 0 ? j : i];
            const Dir d = i < 0 ? Dir::Down : Dir::Up;
            const int r = point("R:" + p.name), mp = member_point(m);
            out.push_back(link(m.name + ":uplink", d, i < 0 ? r : mp, i < 0 ? mp : r, p.link.latency_s / 2, edge_bw));
            return;
        }
        const MemberNet& net = member_net(p);
        for (const Hop& h : net.path(i, j)) {
            const std::size_t k = link_index_.at(&p).at(h.link);
            const auto [u, v] = net.ends(k);
            const int a = member_point(kids[u]), b = member_point(kids[v]);
            const LinkDecl& d = net.links()[k];
            out.push_back(h.dir == Dir::Up ? link(d.id, Dir::Up, a, b, d.latency_s, d.bandwidth_Bps)
                                           : link(d.id, Dir::Down, b, a, d.latency_s, d.bandwidth_Bps));
        }
    }

    const MemberNet& member_net(const Zone& p) {
        auto it = nets_.find(&p);
        if (it == nets_.end()) {
            std::vector<std::string> names;
            for (const Zone& c : p.children) names.push_back(c.name);
            it = nets_.emplace(&p, std::make_unique<MemberNet>(p, names)).first;
            auto& index = link_index_[&p];
            for (std::size_t k = 0; k < it->second->links().size(); ++k) index[it->second->links()[k].id] = k;
        }
        return *it->second;
    }

    static int index_in(const Zone& parent, const Zone* child) {
        for (std::size_t i = 0; i < parent.children.size(); ++i)
            if (&parent.children[i] == child) return static_cast<int>(i);
        return -1;
    }

    std::vector<int> route(const SiteZone& a, const SiteZone& b) {
        std::size_t c = 0;  // the common part of the two paths
        while (c < a.path.size() && c < b.path.size() && a.path[c] == b.path[c]) ++c;
        std::vector<int> out;
        for (std::size_t k = a.path.size() - 1; k > c; --k) {  // up from a to the member of G holding it
            gateway(*a.path[k], true, out);
            middle(*a.path[k - 1], index_in(*a.path[k - 1], a.path[k]), -1, out);
        }
        const Zone& g = *a.path[c - 1];
        gateway(*a.path[c], true, out);
        middle(g, index_in(g, a.path[c]), index_in(g, b.path[c]), out);
        gateway(*b.path[c], false, out);
        for (std::size_t k = c + 1; k < b.path.size(); ++k) {  // down to b
            middle(*b.path[k - 1], -1, index_in(*b.path[k - 1], b.path[k]), out);
            gateway(*b.path[k], false, out);
        }
        return out;
    }

    std::vector<SiteZone> sites_;
    std::map<const Zone*, int> site_id_;
    std::map<std::string, int> points_;
    std::map<std::string, int> links_;
    std::set<const Zone*> joined_;
    std::map<const Zone*, std::unique_ptr<MemberNet>> nets_;
    std::map<const Zone*, std::map<std::string, std::size_t>> link_index_;
    SiteNetwork net_;
};

}  // namespace

// Each pair of sites that meet at the level above gets its route as a pair link there (latency
// summed, the smallest bandwidth), unless the level has pair links already (an explicit
// network's, the same routes): what the models that price a message by its pair see.
void add_route_pair_links(Topology& t, int level, const SiteNetwork& net) {
    if (t.has_pair_links(level - 1)) return;
    for (const auto& [ab, route] : net.routes) {
        if (ab.first > ab.second || route.empty()) continue;
        double lat = 0, bw = 0;
        for (int l : route) {
            const NetLink& x = net.links[static_cast<std::size_t>(l)];
            lat += x.latency_s;
            bw = bw == 0 ? x.bandwidth_Bps : std::min(bw, x.bandwidth_Bps);
        }
        int ra = -1, rb = -1;  // a rank in each site, where placed
        for (int r = 0; r < t.size() && (ra < 0 || rb < 0); ++r)
            if (t.depth(r) > level) {
                if (t.cluster(r, level) == ab.first) ra = r;
                if (t.cluster(r, level) == ab.second) rb = r;
            }
        if (ra >= 0 && rb >= 0 && t.common_level(ra, rb) == level - 1) t.set_pair_link(level - 1, ab.first, ab.second, {lat, bw});
    }
}

void add_site_networks(const Platform& p, Topology& t) {
    for (int level = 1; level + 1 < t.levels(); ++level) {  // zone depths; the last level is the node
        NetBuilder b(p.root, level);
        if (b.sites() < 2 || b.sites() > kMaxSites) continue;
        SiteNetwork net = b.build();
        add_route_pair_links(t, level, net);
        t.set_site_network(level, std::move(net));
    }
}

}  // namespace gridcoll::platform
