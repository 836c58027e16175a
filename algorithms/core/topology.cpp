// Topology: the multilevel view of a communicator (see gridcoll/topology.hpp) — its
// consistency check, the queries the hierarchical algorithms use, and the text form (rank map).
//
// Consistency: cluster ids are only compared within a level, and every cluster of level l > 0
// must lie inside exactly one cluster of level l - 1 (two ranks sharing a level-l cluster share
// every wider one). Checking each level against the one above is enough, by induction.
#include "gridcoll/algorithms/topology.hpp"

#include "gridcoll/algorithms/text.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <set>
#include <system_error>
#include <tuple>
#include <unordered_map>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll {

namespace {

// Why the description is inconsistent ("" when it is not), and the rank at fault (-1: none).
struct Problem {
    std::string what;
    int rank = -1;
};

bool has_space(const std::string& s) {
    for (char c : s)
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#') return true;
    return false;
}

Problem check(const std::vector<std::vector<int>>& clusters, const std::vector<std::string>& names,
              const std::vector<std::optional<LevelLink>>& links) {
    const int levels = static_cast<int>(names.size());
    for (int l = 0; l < levels; ++l) {
        const std::string& n = names[static_cast<std::size_t>(l)];
        if (n.empty() || has_space(n))
            return {"level " + std::to_string(l) + " name '" + n + "' must be one word (no spaces or '#')", -1};
    }
    if (links.size() > names.size())
        return {std::to_string(links.size()) + " level links for " + std::to_string(levels) + " levels", -1};
    for (std::size_t l = 0; l < links.size(); ++l)
        if (links[l] && (!(links[l]->latency_s >= 0) || !(links[l]->bandwidth_Bps >= 0)))
            return {"level " + std::to_string(l) + " link has a negative (or NaN) latency or bandwidth", -1};
    // parent[l][id] = the level l-1 cluster that level-l cluster `id` lies in, and the first rank seen in it.
    std::vector<std::unordered_map<int, std::pair<int, int>>> parent(static_cast<std::size_t>(levels));
    for (std::size_t r = 0; r < clusters.size(); ++r) {
        const auto& ids = clusters[r];
        const int rank = static_cast<int>(r);
        if (ids.empty()) return {"rank " + std::to_string(r) + " has no cluster id (depth 0)", rank};
        if (static_cast<int>(ids.size()) > levels)
            return {"rank " + std::to_string(r) + " has depth " + std::to_string(ids.size()) + " but there are only " +
                        std::to_string(levels) + " levels",
                    rank};
        for (std::size_t l = 0; l < ids.size(); ++l) {
            if (ids[l] < 0)
                return {"rank " + std::to_string(r) + " has a negative cluster id at level " + std::to_string(l), rank};
            if (l == 0) continue;
            auto [it, fresh] = parent[l].try_emplace(ids[l], ids[l - 1], rank);
            if (!fresh && it->second.first != ids[l - 1])
                return {"ranks " + std::to_string(it->second.second) + " and " + std::to_string(r) + " share cluster " +
                            std::to_string(ids[l]) + " of level " + std::to_string(l) + " (" + names[l] +
                            ") but not their level " + std::to_string(l - 1) + " (" + names[l - 1] + ") cluster",
                        rank};
        }
    }
    return {};
}

// Shortest text that reads back to the same double.
std::string num(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    std::string w;
    while (in >> w) out.push_back(w);
    return out;
}

template <class T>
bool parse_num(const std::string& s, T& v) {
    const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

}  // namespace

Topology::Topology(std::vector<std::vector<int>> clusters, std::vector<std::string> level_names,
                   std::vector<std::optional<LevelLink>> links)
    : level_names_(std::move(level_names)), links_(std::move(links)) {
    const Problem p = check(clusters, level_names_, links_);
    if (!p.what.empty()) throw Error("inconsistent topology: " + p.what);
    ids_.assign(clusters.size() * level_names_.size(), -1);
    depth_.reserve(clusters.size());
    for (std::size_t r = 0; r < clusters.size(); ++r) {
        depth_.push_back(static_cast<int>(clusters[r].size()));
        std::copy(clusters[r].begin(), clusters[r].end(), ids_.begin() + static_cast<std::ptrdiff_t>(index(static_cast<int>(r), 0)));
    }
}

Topology Topology::flat(int size) {
    if (size < 0) throw Error("Topology::flat: negative size " + std::to_string(size));
    return Topology(std::vector<std::vector<int>>(static_cast<std::size_t>(size), std::vector<int>{0}), {"all"});
}

std::optional<LevelLink> Topology::link(int level) const {
    if (level < 0 || level >= levels()) throw Error("Topology: no level " + std::to_string(level));
    if (static_cast<std::size_t>(level) >= links_.size()) return std::nullopt;
    return links_[static_cast<std::size_t>(level)];
}

void Topology::set_pair_link(int level, int a, int b, LevelLink link) {
    if (level < 0 || level + 1 >= levels())
        throw Error("Topology: a pair link at level " + std::to_string(level) + " needs a level below it (" +
                    std::to_string(levels()) + " levels)");
    if (a < 0 || b < 0 || a == b)
        throw Error("Topology: a pair link joins two different clusters, not " + std::to_string(a) + " and " +
                    std::to_string(b));
    if (!(link.latency_s >= 0) || !(link.bandwidth_Bps > 0))
        throw Error("Topology: pair link " + std::to_string(a) + "-" + std::to_string(b) +
                    " needs a latency >= 0 and a bandwidth > 0");
    pair_links_[{level, std::min(a, b), std::max(a, b)}] = link;
}

std::optional<LevelLink> Topology::pair_link(int level, int a, int b) const {
    const auto it = pair_links_.find({level, std::min(a, b), std::max(a, b)});
    return it != pair_links_.end() ? std::optional<LevelLink>(it->second) : link(level);
}

bool Topology::has_pair_links(int level) const {
    const auto it = pair_links_.lower_bound({level, -1, -1});
    return it != pair_links_.end() && std::get<0>(it->first) == level;
}

std::vector<std::tuple<int, int, LevelLink>> Topology::pair_links(int level) const {
    std::vector<std::tuple<int, int, LevelLink>> out;
    for (auto it = pair_links_.lower_bound({level, -1, -1}); it != pair_links_.end() && std::get<0>(it->first) == level; ++it)
        out.emplace_back(std::get<1>(it->first), std::get<2>(it->first), it->second);
    return out;
}

void Topology::set_cluster_link(int level, int id, LevelLink link) {
    if (level < 0 || level >= levels())
        throw Error("Topology: a cluster link at level " + std::to_string(level) + " of " + std::to_string(levels()) +
                    " levels");
    if (id < 0) throw Error("Topology: a cluster link names a cluster id >= 0, not " + std::to_string(id));
    if (!(link.latency_s >= 0) || !(link.bandwidth_Bps > 0))
        throw Error("Topology: the link of cluster " + std::to_string(id) + " at level " + std::to_string(level) +
                    " needs a latency >= 0 and a bandwidth > 0");
    cluster_links_[{level, id}] = link;
}

std::optional<LevelLink> Topology::cluster_link(int level, int id) const {
    const auto it = cluster_links_.find({level, id});
    return it != cluster_links_.end() ? std::optional<LevelLink>(it->second) : link(level);
}

std::vector<std::pair<int, LevelLink>> Topology::cluster_links(int level) const {
    std::vector<std::pair<int, LevelLink>> out;
    for (auto it = cluster_links_.lower_bound({level, -1}); it != cluster_links_.end() && it->first.first == level; ++it)
        out.emplace_back(it->first.second, it->second);
    return out;
}

int Topology::common_level(int a, int b) const {
    if (a < 0 || a >= size() || b < 0 || b >= size())
        throw Error("Topology: rank out of range in common_level(" + std::to_string(a) + ", " + std::to_string(b) +
                    ") with " + std::to_string(size()) + " ranks");
    return common_level_unchecked(a, b);
}

bool Topology::is_flat() const {
    for (int r = 0; r < size(); ++r)
        if (depth(r) != levels() || common_level_unchecked(0, r) != levels() - 1) return false;
    return true;
}

std::vector<int> Topology::members(int rank, int level) const {
    if (rank < 0 || rank >= size()) throw Error("Topology: no rank " + std::to_string(rank));
    if (level < 0 || level >= depth(rank))
        throw Error("Topology: rank " + std::to_string(rank) + " has depth " + std::to_string(depth(rank)) +
                    ", no level " + std::to_string(level));
    const int id = cluster(rank, level);
    std::vector<int> out;
    for (int r = 0; r < size(); ++r)
        if (depth(r) > level && cluster(r, level) == id) out.push_back(r);
    return out;
}

void Topology::set_gateway(int rank, int level) {
    if (rank < 0 || rank >= size()) throw Error("Topology: no rank " + std::to_string(rank) + " to be a gateway");
    if (level < 0 || level >= depth(rank))
        throw Error("Topology: rank " + std::to_string(rank) + " has depth " + std::to_string(depth(rank)) +
                    ", so no gateway at level " + std::to_string(level));
    const auto [it, fresh] = gateways_.try_emplace({level, cluster(rank, level)}, rank);
    if (!fresh && it->second != rank)
        throw Error("Topology: the level-" + std::to_string(level) + " cluster of rank " + std::to_string(rank) +
                    " already has gateway rank " + std::to_string(it->second));
}

int Topology::gateway(int rank, int level) const {
    if (level < 0 || level >= depth(rank)) return -1;
    const auto it = gateways_.find({level, cluster(rank, level)});
    return it == gateways_.end() ? -1 : it->second;
}

std::string Topology::to_text() const {
    std::string s = "# gridcoll rank map\nlevels";
    for (const auto& n : level_names_) s += " " + n;
    s += "\n";
    for (std::size_t l = 0; l < links_.size(); ++l)
        if (links_[l])
            s += "link " + std::to_string(l) + " " + num(links_[l]->latency_s) + " " + num(links_[l]->bandwidth_Bps) +
                 "\n";
    for (int r = 0; r < size(); ++r) {
        s += "rank " + std::to_string(r);
        for (int l = 0; l < depth(r); ++l) s += " " + std::to_string(cluster(r, l));
        s += "\n";
    }
    for (const auto& [key, r] : gateways_) s += "gateway " + std::to_string(r) + " " + std::to_string(key.first) + "\n";
    for (const auto& [key, l] : pair_links_)
        s += "pairlink " + std::to_string(std::get<0>(key)) + " " + std::to_string(std::get<1>(key)) + " " +
             std::to_string(std::get<2>(key)) + " " + num(l.latency_s) + " " + num(l.bandwidth_Bps) + "\n";
    for (const auto& [key, l] : cluster_links_)
        s += "clusterlink " + std::to_string(key.first) + " " + std::to_string(key.second) + " " + num(l.latency_s) + " " +
             num(l.bandwidth_Bps) + "\n";
    for (const auto& [level, net] : site_networks_) s += site_network_text(level, net);
    return s;
}

// Lines: "levels <name>...", then any of "link <level index or name> <latency_s> <bandwidth_Bps>"
// and "rank <r> <id>..."; '#' starts a comment; blank lines are ignored. Ranks may come in any
// order but must be 0 .. P-1, each once.
Topology Topology::first(int n) const {
    if (n < 1 || n > size())
        throw Error("cannot take the first " + std::to_string(n) + " ranks of a topology of " + std::to_string(size()));
    std::vector<int> ranks(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) ranks[static_cast<std::size_t>(r)] = r;
    return select(ranks);
}

Topology Topology::select(const std::vector<int>& ranks) const {
    if (ranks.empty()) throw Error("cannot select no ranks of a topology");
    std::vector<std::vector<int>> ids(ranks.size());
    std::map<int, int> new_rank;  // old rank -> its rank in the selection
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const int r = ranks[i];
        if (r < 0 || r >= size())
            throw Error("rank " + std::to_string(r) + " is not in a topology of " + std::to_string(size()) + " ranks");
        if (!new_rank.emplace(r, static_cast<int>(i)).second)
            throw Error("rank " + std::to_string(r) + " selected twice");
        for (int l = 0; l < depth(r); ++l) ids[i].push_back(cluster(r, l));
    }
    Topology t(std::move(ids), level_names_, links_);
    for (const auto& [key, r] : gateways_)
        if (auto it = new_rank.find(r); it != new_rank.end()) t.set_gateway(it->second, key.first);
    t.pair_links_ = pair_links_;  // cluster ids are kept
    t.cluster_links_ = cluster_links_;
    t.site_networks_ = site_networks_;
    return t;
}

void Topology::set_site_network(int level, SiteNetwork net) {
    if (level < 0 || level >= levels()) throw Error("Topology: no level " + std::to_string(level) + " for a site network");
    try {
        net.check();
    } catch (const Error& e) {
        throw Error(std::string("Topology: ") + e.what());
    }
    site_networks_[level] = std::move(net);
}

const SiteNetwork* Topology::site_network(int level) const {
    const auto it = site_networks_.find(level);
    return it == site_networks_.end() ? nullptr : &it->second;
}

Topology Topology::load(const std::string& path) { return from_text(read_text_file(path), path); }

namespace {

// A rank map's text (Topology::to_text's format), read line by line; build() checks the whole.
// Every error names origin:line.
struct RankMapReader {
    std::string origin;
    std::vector<std::string> names;
    int levels_line = 0;
    std::vector<std::optional<LevelLink>> links;
    std::map<int, std::pair<std::vector<int>, int>> ranks;             // rank -> (ids, line)
    std::vector<std::tuple<int, int, int>> gateways;                    // (rank, level, line)
    std::vector<std::tuple<int, int, int, LevelLink, int>> pairs;       // (level, a, b, link, line)
    std::vector<std::tuple<int, int, LevelLink, int>> cluster_links;    // (level, id, link, line)
    std::map<int, SiteNetwork> nets;                                    // netlink / netjoin / route lines
    std::map<int, int> net_lines;                                       // level -> its last such line

    Error fail(int at, const std::string& what) const { return Error(origin + ":" + std::to_string(at) + ": " + what); }

    void line(const std::vector<std::string>& w, int at) {
        if (w[0] == "levels") levels(w, at);
        else if (w[0] == "link") link(w, at);
        else if (w[0] == "rank") rank(w, at);
        else if (w[0] == "gateway") gateway(w, at);
        else if (w[0] == "pairlink") pairlink(w, at);
        else if (w[0] == "clusterlink") clusterlink(w, at);
        else if (w[0] == "netlink" || w[0] == "netjoin" || w[0] == "route") network(w, at);
        else throw fail(at, "unknown line '" + w[0] + "' (expected levels, link, rank, gateway, pairlink, clusterlink, "
                            "netlink, netjoin or route)");
    }

    void levels(const std::vector<std::string>& w, int at) {
        if (levels_line) throw fail(at, "second 'levels' line (the first is line " + std::to_string(levels_line) + ")");
        if (w.size() < 2) throw fail(at, "'levels' needs at least one level name");
        names.assign(w.begin() + 1, w.end());
        levels_line = at;
    }

    // A level by index or by name.
    int level_of(const std::string& word, int at) const {
        int level = -1;
        if (!parse_num(word, level)) {
            for (std::size_t l = 0; l < names.size(); ++l)
                if (names[l] == word) {
                    if (level >= 0) throw fail(at, "level name '" + word + "' is ambiguous; use its index");
                    level = static_cast<int>(l);
                }
        }
        if (level < 0 || level >= static_cast<int>(names.size())) throw fail(at, "no level '" + word + "'");
        return level;
    }

    void link(const std::vector<std::string>& w, int at) {
        if (!levels_line) throw fail(at, "'link' before the 'levels' line");
        if (w.size() != 4) throw fail(at, "expected 'link <level> <latency_s> <bandwidth_Bps>'");
        const auto level = static_cast<std::size_t>(level_of(w[1], at));
        LevelLink ll;
        if (!parse_num(w[2], ll.latency_s) || !(ll.latency_s >= 0)) throw fail(at, "bad latency '" + w[2] + "' (seconds, >= 0)");
        if (!parse_num(w[3], ll.bandwidth_Bps) || !(ll.bandwidth_Bps >= 0))
            throw fail(at, "bad bandwidth '" + w[3] + "' (bytes per second, >= 0)");
        if (links.size() <= level) links.resize(level + 1);
        if (links[level]) throw fail(at, "second link for level " + w[1]);
        links[level] = ll;
    }

    void rank(const std::vector<std::string>& w, int at) {
        if (!levels_line) throw fail(at, "'rank' before the 'levels' line");
        int r = -1;
        if (w.size() < 3) throw fail(at, "expected 'rank <r> <cluster id>...'");
        if (!parse_num(w[1], r) || r < 0) throw fail(at, "bad rank '" + w[1] + "'");
        if (w.size() - 2 > names.size())
            throw fail(at, "rank " + w[1] + " has " + std::to_string(w.size() - 2) + " cluster ids but there are " +
                               std::to_string(names.size()) + " levels");
        std::vector<int> ids;
        for (std::size_t i = 2; i < w.size(); ++i) {
            int id = -1;
            if (!parse_num(w[i], id) || id < 0) throw fail(at, "bad cluster id '" + w[i] + "'");
            ids.push_back(id);
        }
        auto [it, fresh] = ranks.try_emplace(r, std::move(ids), at);
        if (!fresh) throw fail(at, "rank " + w[1] + " listed twice (also line " + std::to_string(it->second.second) + ")");
    }

    void gateway(const std::vector<std::string>& w, int at) {
        int r = -1, level = -1;
        if (w.size() != 3 || !parse_num(w[1], r) || !parse_num(w[2], level))
            throw fail(at, "expected 'gateway <rank> <level index>'");
        gateways.emplace_back(r, level, at);
    }

    void pairlink(const std::vector<std::string>& w, int at) {
        int level = -1, a = -1, b = -1;
        LevelLink ll;
        if (w.size() != 6 || !parse_num(w[1], level) || !parse_num(w[2], a) || !parse_num(w[3], b) ||
            !parse_num(w[4], ll.latency_s) || !parse_num(w[5], ll.bandwidth_Bps))
            throw fail(at, "expected 'pairlink <level index> <cluster a> <cluster b> <latency_s> <bandwidth_Bps>'");
        pairs.emplace_back(level, a, b, ll, at);
    }

    void clusterlink(const std::vector<std::string>& w, int at) {
        int level = -1, id = -1;
        LevelLink ll;
        if (w.size() != 5 || !parse_num(w[1], level) || !parse_num(w[2], id) || !parse_num(w[3], ll.latency_s) ||
            !parse_num(w[4], ll.bandwidth_Bps))
            throw fail(at, "expected 'clusterlink <level index> <cluster id> <latency_s> <bandwidth_Bps>'");
        cluster_links.emplace_back(level, id, ll, at);
    }

    void network(const std::vector<std::string>& w, int at) {
        try {
            read_site_network_line(w, nets);
        } catch (const Error& e) {
            throw fail(at, e.what());
        }
        net_lines[std::stoi(w[1])] = at;
    }

    // Runs `set` (a Topology setter), naming line `at` in its error.
    template <class F>
    void at_line(int at, F&& set) const {
        try {
            set();
        } catch (const Error& e) {
            throw fail(at, std::string(e.what()).substr(std::string("Topology: ").size()));
        }
    }

    Topology build(int last_line) {
        if (!levels_line) throw fail(last_line ? last_line : 1, "no 'levels' line: not a rank map");
        if (ranks.empty()) throw fail(last_line, "no 'rank' lines");
        std::vector<std::vector<int>> clusters;
        std::vector<int> lines;
        for (auto& [r, v] : ranks) {
            if (r != static_cast<int>(clusters.size()))
                throw fail(v.second, "rank " + std::to_string(r) + " but rank " + std::to_string(clusters.size()) + " is missing");
            clusters.push_back(std::move(v.first));
            lines.push_back(v.second);
        }
        const Problem p = check(clusters, names, links);
        if (!p.what.empty()) throw fail(p.rank >= 0 ? lines[static_cast<std::size_t>(p.rank)] : levels_line, p.what);
        Topology t(std::move(clusters), std::move(names), std::move(links));
        for (const auto& [r, level, at] : gateways) at_line(at, [&] { t.set_gateway(r, level); });
        std::map<int, std::set<int>> ids_at;  // level -> the cluster ids there, for the pair links
        for (const auto& [level, a, b, ll, at] : pairs) {
            at_line(at, [&] { t.set_pair_link(level, a, b, ll); });
            const auto [it, fresh] = ids_at.try_emplace(level + 1);
            if (fresh)
                for (int r = 0; r < t.size(); ++r)
                    if (t.depth(r) > level + 1) it->second.insert(t.cluster(r, level + 1));
            const std::set<int>& ids = it->second;
            for (int c : {a, b})
                if (!ids.count(c))
                    throw fail(at, "pair link " + std::to_string(a) + "-" + std::to_string(b) + ": no cluster " +
                                       std::to_string(c) + " at level " + std::to_string(level + 1));
        }
        for (const auto& [level, id, ll, at] : cluster_links) at_line(at, [&] { t.set_cluster_link(level, id, ll); });
        for (auto& [level, net] : nets) at_line(net_lines[level], [&] { t.set_site_network(level, std::move(net)); });
        return t;
    }
};

}  // namespace

Topology Topology::from_text(const std::string& text, const std::string& origin) {
    RankMapReader reader;
    reader.origin = origin;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        const auto w = split(line);
        if (!w.empty()) reader.line(w, lineno);
    }
    return reader.build(lineno);
}

}  // namespace gridcoll
