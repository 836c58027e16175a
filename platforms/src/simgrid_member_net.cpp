// MemberNet (simgrid_xml_parts.hpp): the links of a mesh, ring or explicit network and the
// path between every two members — for an explicit one the least latency, then the widest.
#include <limits>
#include <set>

#include "simgrid_xml_parts.hpp"

namespace gridcoll::platform::xml {

MemberNet::MemberNet(const Zone& z, std::vector<std::string> names)
    : z_(z), names_(std::move(names)) {
    const int n = static_cast<int>(names_.size());
    const double lat = check_lat(z, z.link.latency_s, "link");
    switch (z.network) {
        case Interconnect::Mesh: {
            const double bw = check_bw(z, z.link.bandwidth_Bps, "link");
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j < n; ++j)
                {
                    links_.push_back({names_[i] + ":" + names_[j], lat, bw, "SPLITDUPLEX"});
                    ends_.push_back({i, j});
                }
            break;
        }
        case Interconnect::Ring: {
            const double bw = check_bw(z, z.link.bandwidth_Bps, "link");
            const int count = n < 2 ? 0 : (n == 2 ? 1 : n);
            for (int k = 0; k < count; ++k) {
                links_.push_back({names_[k] + ":" + names_[(k + 1) % n], lat, bw, "SPLITDUPLEX"});
                ends_.push_back({k, (k + 1) % n});
            }
            break;
        }
        case Interconnect::Explicit: {
            std::set<std::string> used;
            for (std::size_t e = 0; e < z.links.size(); ++e) {
                const ExplicitLink& l = z.links[e];
                const auto ia = index_of(l.a), ib = index_of(l.b);
                std::string id = l.a + ":" + l.b;
                if (!used.insert(id).second) id += ":" + std::to_string(e);
                used.insert(id);
                links_.push_back({id, check_lat(z, l.link.latency_s, "link " + id),
                                  check_bw(z, l.link.bandwidth_Bps, "link " + id), "SPLITDUPLEX"});
                ends_.push_back({ia, ib});
            }
            shortest_paths();
            break;
        }
        default:
            throw Error(where(z) + "internal: not a mesh, ring or explicit network");
    }
}

Path MemberNet::path(int i, int j) const {
    const int n = static_cast<int>(names_.size());
    Path p;
    switch (z_.network) {
        case Interconnect::Mesh: {
            const int a = std::min(i, j), b = std::max(i, j);
            p.push_back({names_[a] + ":" + names_[b], i < j ? Dir::Up : Dir::Down});
            break;
        }
        case Interconnect::Ring: {
            if (n == 2) {
                p.push_back({links_[0].id, i < j ? Dir::Up : Dir::Down});
                break;
            }
            const int fwd = ((j - i) % n + n) % n;
            if (fwd <= n - fwd) {
                for (int k = i; k != j; k = (k + 1) % n) p.push_back({links_[k].id, Dir::Up});
            } else {
                for (int k = i; k != j; k = (k - 1 + n) % n) p.push_back({links_[(k - 1 + n) % n].id, Dir::Down});
            }
            break;
        }
        case Interconnect::Explicit: {
            std::vector<Hop> rev;
            for (int v = j; v != i;) {
                const int e = via_[idx(i, v)];
                if (e < 0) throw Error(where(z_) + "no path from \"" + names_[i] + "\" to \"" + names_[v] + "\"");
                const bool forward = ends_[e].second == v;
                rev.push_back({links_[e].id, forward ? Dir::Up : Dir::Down});
                v = forward ? ends_[e].first : ends_[e].second;
            }
            p.assign(rev.rbegin(), rev.rend());
            break;
        }
        default:
            break;
    }
    return p;
}

int MemberNet::index_of(const std::string& name) const {
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) throw Error(where(z_) + "explicit link names \"" + name + "\", which is not a member");
    return static_cast<int>(it - names_.begin());
}

std::size_t MemberNet::idx(int a, int b) const {
    return static_cast<std::size_t>(a) * names_.size() + static_cast<std::size_t>(b);
}

bool MemberNet::better(double lat, double bw, double best_lat, double best_bw) {
    const double tol = 1e-9 * std::max(std::abs(lat), std::abs(best_lat));
    if (lat < best_lat - tol) return true;
    if (lat > best_lat + tol) return false;
    return bw > best_bw;
}

void MemberNet::shortest_paths() {
    const int n = static_cast<int>(names_.size());
    const double inf = std::numeric_limits<double>::infinity();
    via_.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), -1);
    for (int s = 0; s < n; ++s) {
        std::vector<double> lat(static_cast<std::size_t>(n), inf), bw(static_cast<std::size_t>(n), 0);
        std::vector<bool> done(static_cast<std::size_t>(n), false);
        lat[s] = 0;
        bw[s] = inf;
        for (;;) {
            int u = -1;
            for (int v = 0; v < n; ++v)
                if (!done[v] && lat[v] < inf && (u < 0 || better(lat[v], bw[v], lat[u], bw[u]))) u = v;
            if (u < 0) break;
            done[u] = true;
            for (std::size_t e = 0; e < ends_.size(); ++e) {
                int v;
                if (ends_[e].first == u)
                    v = ends_[e].second;
                else if (ends_[e].second == u)
                    v = ends_[e].first;
                else
                    continue;
                if (done[v]) continue;
                const double l = lat[u] + links_[e].latency_s, b = std::min(bw[u], links_[e].bandwidth_Bps);
                if (lat[v] == inf || better(l, b, lat[v], bw[v])) {
                    lat[v] = l;
                    bw[v] = b;
                    via_[idx(s, v)] = static_cast<int>(e);
                }
            }
        }
    }
}

}  // namespace gridcoll::platform::xml
