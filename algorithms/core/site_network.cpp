#include "gridcoll/algorithms/site_network.hpp"

#include <charconv>
#include <cmath>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll {

namespace {

std::string num(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

template <class T>
bool parse_num(const std::string& s, T& v) {
    const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

int whole(const std::string& w, const char* what) {
    int v = 0;
    if (!parse_num(w, v)) throw Error(std::string("bad ") + what + " '" + w + "'");
    return v;
}

}  // namespace

double SiteNetwork::route_latency(int a, int b) const {
    double sum = 0;
    if (const auto* r = route(a, b))
        for (int l : *r) sum += links[static_cast<std::size_t>(l)].latency_s;
    return sum;
}

void SiteNetwork::check() const {
    for (std::size_t i = 0; i < links.size(); ++i) {
        const NetLink& l = links[i];
        if (!(l.bandwidth_Bps > 0) || !std::isfinite(l.bandwidth_Bps) || !(l.latency_s >= 0) || !std::isfinite(l.latency_s))
            throw Error("network link " + std::to_string(i) + " (" + l.name + "): latency must be >= 0 and bandwidth > 0");
        if (l.from == l.to) throw Error("network link " + std::to_string(i) + " (" + l.name + ") joins a vertex to itself");
        if (l.name.find_first_of(" \t\n#") != std::string::npos)
            throw Error("network link " + std::to_string(i) + ": its name '" + l.name + "' has a blank or '#'");
    }
    for (const auto& [ab, route] : routes) {
        const std::string what = "route from site " + std::to_string(ab.first) + " to site " + std::to_string(ab.second);
        if (ab.first < 0 || ab.second < 0 || ab.first == ab.second) throw Error(what + ": not two different sites");
        for (int l : route)
            if (l < 0 || l >= static_cast<int>(links.size())) throw Error(what + ": no network link " + std::to_string(l));
    }
}

std::string site_network_text(int level, const SiteNetwork& net) {
    const std::string lv = std::to_string(level);
    std::string s;
    for (const NetLink& l : net.links)
        s += "netlink " + lv + " " + std::to_string(l.from) + " " + std::to_string(l.to) + " " + num(l.latency_s) + " " +
             num(l.bandwidth_Bps) + " " + (l.name.empty() ? "-" : l.name) + "\n";
    for (const auto& [a, b] : net.joins) s += "netjoin " + lv + " " + std::to_string(a) + " " + std::to_string(b) + "\n";
    for (const auto& [ab, route] : net.routes) {
        s += "route " + lv + " " + std::to_string(ab.first) + " " + std::to_string(ab.second);
        for (int l : route) s += " " + std::to_string(l);
        s += "\n";
    }
    return s;
}

void read_site_network_line(const std::vector<std::string>& w, std::map<int, SiteNetwork>& nets) {
    if (w.size() < 2) throw Error("'" + w[0] + "' needs a level");
    const int level = whole(w[1], "level");
    if (level < 0) throw Error("bad level '" + w[1] + "'");
    SiteNetwork& net = nets[level];
    if (w[0] == "netlink") {
        if (w.size() != 7) throw Error("expected 'netlink <level> <from> <to> <latency_s> <bandwidth_Bps> <name>'");
        NetLink l{whole(w[2], "vertex"), whole(w[3], "vertex"), 0, 0, w[6] == "-" ? "" : w[6]};
        if (!parse_num(w[4], l.latency_s) || !(l.latency_s >= 0)) throw Error("bad latency '" + w[4] + "' (seconds, >= 0)");
        if (!parse_num(w[5], l.bandwidth_Bps) || !(l.bandwidth_Bps > 0))
            throw Error("bad bandwidth '" + w[5] + "' (bytes per second, > 0)");
        if (l.from == l.to) throw Error("a network link from vertex " + w[2] + " to itself");
        net.links.push_back(std::move(l));
    } else if (w[0] == "netjoin") {
        if (w.size() != 4) throw Error("expected 'netjoin <level> <from> <to>'");
        net.joins.emplace_back(whole(w[2], "vertex"), whole(w[3], "vertex"));
    } else {
        if (w.size() < 5) throw Error("expected 'route <level> <site a> <site b> <link index>...'");
        const int a = whole(w[2], "site"), b = whole(w[3], "site");
        if (a < 0 || b < 0 || a == b) throw Error("a route needs two different sites (got " + w[2] + ", " + w[3] + ")");
        std::vector<int> route;
        for (std::size_t i = 4; i < w.size(); ++i) {
            const int l = whole(w[i], "link index");
            if (l < 0 || l >= static_cast<int>(net.links.size()))
                throw Error("route uses link " + w[i] + ", which no earlier netlink line of level " + w[1] + " declares");
            route.push_back(l);
        }
        if (!net.routes.emplace(std::pair{a, b}, std::move(route)).second)
            throw Error("second route from site " + w[2] + " to site " + w[3]);
    }
}

}  // namespace gridcoll
