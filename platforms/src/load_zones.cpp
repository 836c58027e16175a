// Reading the zone tree of a platform description (FORMAT.md "Zones"): one table per zone,
// `count` expanded into numbered copies, and the checks that need a zone's members — explicit
// links naming members that exist and joining them all, a gateway node inside its zone, and
// names unique across the platform (zones and nodes share one namespace).
//
// Names in a replicated zone. `count = K` makes copies <name>0 .. <name>K-1; the descendants of
// a replicated group get the copy's name and "-" as a prefix (site0-c, site0-c-3, ...) so that
// they stay unique. Names written inside a replicated zone (gateway.node, links' a and b) are
// those of its first copy and are renamed for the others: in copy i, a leading "<name>0" (whole,
// or followed by "-") becomes "<name>i".
#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "limits.hpp"
#include "loader.hpp"
#include "toml_reader.hpp"

namespace gridcoll::platform::detail {

namespace {

using Rewrites = std::vector<std::pair<std::string, std::string>>;  // leading name -> name in this copy

std::string rewrite(std::string s, const Rewrites& rw) {
    for (const auto& [from, to] : rw)
        if (s.compare(0, from.size(), from) == 0 && (s.size() == from.size() || s[from.size()] == '-'))
            s = to + s.substr(from.size());
    return s;
}

bool is_word(const std::string& s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
}

// What is wrong with a zone's name or level ("" if nothing): host names are made of them, and
// the emulator gives them to `hostname` (no leading '-', at most 64 characters).
std::string word_problem(const std::string& what, const std::string& s) {
    const std::string named = what + " \"" + s + "\"";
    if (!is_word(s)) return named + " may only hold letters, digits, '.', '_' and '-'";
    if (!std::isalnum(static_cast<unsigned char>(s[0]))) return named + " must start with a letter or a digit";
    if (s.size() > 48) return named + " is longer than 48 characters";
    return "";
}

// The node index in a node name "<leaf>-<index>": canonical decimal digits (no sign, no leading
// zero), or -1.
int node_index(const std::string& idx) {
    if (idx.empty() || idx.size() > 9 || (idx.size() > 1 && idx[0] == '0')) return -1;
    if (!std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
    return std::stoi(idx);
}

// True if `host` is a node of zone `z` (at any depth).
bool is_node_of(const Zone& z, const std::string& host) {
    if (!z.is_leaf())
        return std::any_of(z.children.begin(), z.children.end(), [&](const Zone& c) { return is_node_of(c, host); });
    const std::string prefix = z.name + "-";
    if (host.size() <= prefix.size() || host.compare(0, prefix.size(), prefix) != 0) return false;
    const int n = node_index(host.substr(prefix.size()));
    return n >= 0 && n < z.nodes;
}

// The zone's `network` (default switched). `topology` is the older spelling of the key, still
// read; giving both is an error (`zone` is the zone's name, for the message).
Interconnect parse_interconnect(const TableReader& r, const std::string& zone) {
    if (r.has("network") && r.has("topology"))
        r.fail_at(
            "topology",
            "zone \"" + zone + "\" has both network and topology (the older spelling of network); keep only network");
    const char* key = r.has("topology") ? "topology" : "network";
    const auto t = r.string(key);
    if (!t || *t == "switched") return Interconnect::Switched;
    if (*t == "shared") return Interconnect::Shared;
    if (*t == "star") return Interconnect::Star;
    if (*t == "mesh") return Interconnect::Mesh;
    if (*t == "ring") return Interconnect::Ring;
    if (*t == "explicit") return Interconnect::Explicit;
    r.fail_at(key, "unknown network \"" + *t + "\" (switched, shared, star, mesh, ring, explicit)");
}

// An explicit link as written (names not yet renamed), with where its ends are.
struct RawLink {
    ExplicitLink link;
    SourceLoc a_loc, b_loc;
    std::string key;  // "zone.links[2]"
};

class ZoneReader {
public:
    explicit ZoneReader(const std::string& origin) : origin_(origin) {}

    std::vector<Zone> read(const toml::table& t, const std::string& path, int depth, const std::string& prefix,
                           const Rewrites& rw) {
        TableReader r(t, path, origin_);
        r.only_keys({"name", "level", "count", "network", "topology", "link", "backbone", "links", "gateway", "zones",
                     "nodes", "cores", "speed", "core_link"});
        if (depth >= kMaxDepth) r.fail_here("zones nested deeper than " + std::to_string(kMaxDepth) + " levels");
        r.need("name");
        const std::string base = *r.string("name");
        if (const std::string why = word_problem("name", base); !why.empty()) r.fail_at("name", why);
        Shape shape;
        shape.proto = read_common(r, depth, shape);
        shape.zones = read_contents(r, shape.proto);
        std::vector<Zone> out;
        const int copies = shape.count ? static_cast<int>(*shape.count) : 1;
        for (int i = 0; i < copies; ++i) out.push_back(copy(r, shape, i, base, depth, prefix, rw));
        return out;
    }

private:
    // What one [[zones]] table says, before it is replicated `count` times.
    struct Shape {
        Zone proto;
        std::optional<std::int64_t> count;
        std::vector<RawLink> raw_links;
        const toml::array* zones = nullptr;  // children; null for a leaf
    };

    // Level, count, network, links, backbone, explicit links and gateway.
    Zone read_common(TableReader& r, int depth, Shape& shape) {
        Zone proto;
        proto.loc = r.loc();
        proto.level = r.string("level").value_or("level" + std::to_string(depth));
        if (const std::string why = word_problem("level", proto.level); !why.empty()) r.fail_at("level", why);
        if (proto.level == "node") r.fail_at("level", "level \"node\" is the name of the last level, which every description has");
        shape.count = r.integer("count", 1, kMaxZones);
        if (shape.count && depth == 0) r.fail_at("count", "the root zone cannot be replicated");
        proto.network = parse_interconnect(r, *r.string("name"));
        if (proto.network != Interconnect::Explicit) r.need("link");
        if (const auto* l = r.table("link")) proto.link = read_link(TableReader(*l, r.path_of("link"), origin_));
        if (const auto* b = r.table("backbone")) {
            if (proto.network != Interconnect::Switched) r.fail_at("backbone", "only for network = \"switched\"");
            proto.backbone = read_link(TableReader(*b, r.path_of("backbone"), origin_));
        }
        if (const auto* links = r.array("links")) {
            if (proto.network != Interconnect::Explicit) r.fail_at("links", "only for network = \"explicit\"");
            shape.raw_links = read_explicit_links(r, *links);
        }
        if (const auto* g = r.table("gateway")) {
            if (depth == 0) r.fail_at("gateway", "the root zone has no parent network to reach, so no gateway");
            proto.gateway = read_gateway(TableReader(*g, r.path_of("gateway"), origin_));
        }
        return proto;
    }

    // A leaf's nodes, cores, speed and core link, or the children (returned; null for a leaf).
    const toml::array* read_contents(TableReader& r, Zone& proto) {
        const bool leaf = r.has("nodes");
        const toml::array* zones = r.array("zones");
        if (leaf && zones)
            r.fail_at("zones", "a zone has either nodes = N (a leaf cluster) or [[...zones]] children, not both");
        if (!leaf && !zones) r.fail_here("a zone needs nodes = N (a leaf cluster) or [[...zones]] children");
        if (leaf) {
            proto.nodes = static_cast<int>(*r.integer("nodes", 1, kMaxHosts));
            proto.cores = static_cast<int>(r.integer("cores", 1, kMaxCores).value_or(1));
            if (const auto s = r.speed("speed")) {
                if (!(*s > 0)) r.fail_at("speed", "speed must be > 0, got \"" + *r.string("speed") + "\"");
                proto.speed_flops = *s;
            }
            if (const auto* c = r.table("core_link"))
                proto.core_link = read_link(TableReader(*c, r.path_of("core_link"), origin_));
            return nullptr;
        }
        for (const char* k : {"cores", "speed", "core_link"})
            if (r.has(k)) r.fail_at(k, "only for a leaf zone (one with nodes = N)");
        if (zones->empty()) r.fail_at("zones", "no child zones");
        for (std::size_t i = 0; i < zones->size(); ++i)
            if (!(*zones)[i].is_table())
                fail(r.loc((*zones)[i]), r.path_of("zones") + "[" + std::to_string(i) + "]",
                     "expected a table, got " + type_name((*zones)[i]));
        return zones;
    }

    // Copy i of a replicated zone: its name, its nodes or children, its gateway and links.
    Zone copy(TableReader& r, const Shape& shape, int i, const std::string& base, int depth, const std::string& prefix,
              const Rewrites& rw) {
        Zone z = shape.proto;
        z.name = prefix + base + (shape.count ? std::to_string(i) : "");
        add_name(z.name, r.loc(*r.get("name")), r.path_of("name"));
        if (++zones_ > kMaxZones) r.fail_here("more than " + std::to_string(kMaxZones) + " zones");
        Rewrites rw_i = rw;
        if (shape.count && i > 0) rw_i.emplace_back(prefix + base + "0", z.name);
        const std::string child_prefix = shape.count ? z.name + "-" : prefix;
        if (!shape.zones) {
            hosts_ += z.nodes;
            if (hosts_ > kMaxHosts) r.fail_at("nodes", "more than " + std::to_string(kMaxHosts) + " nodes in the platform");
            leaves_.emplace(z.name, z.nodes);
        } else {
            for (std::size_t k = 0; k < shape.zones->size(); ++k) {
                auto kids = read(*(*shape.zones)[k].as_table(), r.path_of("zones") + "[" + std::to_string(k) + "]", depth + 1,
                                 child_prefix, rw_i);
                for (auto& kid : kids) z.children.push_back(std::move(kid));
            }
        }
        if (z.gateway && !z.gateway->node.empty()) {
            z.gateway->node = rewrite(z.gateway->node, rw_i);
            if (!is_node_of(z, z.gateway->node))
                fail(z.gateway->loc, r.path_of("gateway.node"),
                     "gateway node \"" + z.gateway->node + "\" is not a node of zone \"" + z.name + "\"");
        }
        if (z.network == Interconnect::Explicit) resolve_links(z, shape.raw_links, rw_i, r);
        return z;
    }

public:
    // Zone names that are also node names: node names are "<leaf>-<index>", and a "-" followed
    // by digits ends every node name, so two leaves can only share node names if they share
    // their own name, which add_name has caught. That leaves a zone named like a node.
    void check_zone_names_against_nodes() const {
        for (const auto& name : order_) {
            const auto dash = name.rfind('-');
            if (dash == std::string::npos) continue;
            const std::string leaf = name.substr(0, dash);
            const auto it = leaves_.find(leaf);
            const int n = node_index(name.substr(dash + 1));
            if (it == leaves_.end() || n < 0 || n >= it->second) continue;
            const NameInfo& info = names_.at(name);
            fail(info.at, info.key,
                 "duplicate name \"" + name + "\" (also a node of zone \"" + leaf + "\", defined at " +
                     names_.at(leaf).at.str() + ")");
        }
    }

private:
    void add_name(const std::string& name, const SourceLoc& at, const std::string& key) {
        auto [it, fresh] = names_.try_emplace(name, NameInfo{at, key});
        if (!fresh) fail(at, key, "duplicate name \"" + name + "\" (already used at " + it->second.at.str() + ")");
        order_.push_back(name);
    }

    std::vector<RawLink> read_explicit_links(const TableReader& r, const toml::array& links) {
        std::vector<RawLink> out;
        for (std::size_t i = 0; i < links.size(); ++i) {
            const std::string key = r.path_of("links") + "[" + std::to_string(i) + "]";
            if (!links[i].is_table()) fail(r.loc(links[i]), key, "expected a table, got " + type_name(links[i]));
            TableReader lr(*links[i].as_table(), key, origin_);
            RawLink rl;
            rl.key = key;
            rl.link.link = read_link(lr, {"a", "b"});
            lr.need("a");
            lr.need("b");
            rl.link.a = *lr.string("a");
            rl.link.b = *lr.string("b");
            rl.a_loc = lr.loc(*lr.get("a"));
            rl.b_loc = lr.loc(*lr.get("b"));
            out.push_back(std::move(rl));
        }
        return out;
    }

    Gateway read_gateway(const TableReader& g) {
        g.only_keys({"node", "overhead", "bandwidth"});
        Gateway gw;
        gw.loc = g.loc();
        gw.node = g.string("node").value_or("");
        if (g.has("node")) gw.loc = g.loc(*g.get("node"));
        gw.overhead_s = g.time("overhead").value_or(0);
        if (gw.overhead_s < 0) g.fail_at("overhead", "negative overhead \"" + *g.string("overhead") + "\"");
        gw.bandwidth_Bps = g.bandwidth("bandwidth").value_or(0);
        if (g.has("bandwidth") && gw.bandwidth_Bps < 0)
            g.fail_at("bandwidth", "negative bandwidth \"" + *g.string("bandwidth") + "\"");
        if (g.has("bandwidth") && gw.bandwidth_Bps == 0)
            g.fail_at("bandwidth", "zero bandwidth \"" + *g.string("bandwidth") + "\"");
        return gw;
    }

    // Renames the links for this copy, checks both ends are distinct members and that the links
    // join every member, and stores them in z.links.
    void resolve_links(Zone& z, const std::vector<RawLink>& raw, const Rewrites& rw, const TableReader& r) {
        std::vector<std::string> members;
        if (z.is_leaf())
            for (int n = 0; n < z.nodes; ++n) members.push_back(z.name + "-" + std::to_string(n));
        else
            for (const auto& c : z.children) members.push_back(c.name);
        std::unordered_map<std::string, std::size_t> member_index;
        for (std::size_t m = 0; m < members.size(); ++m) member_index.emplace(members[m], m);
        const auto index = [&](const std::string& name, const SourceLoc& at, const std::string& key) {
            const auto it = member_index.find(name);
            if (it != member_index.end()) return it->second;
            std::string list;
            for (std::size_t k = 0; k < members.size() && k < 8; ++k) list += (k ? ", " : "") + members[k];
            if (members.size() > 8) list += ", ...";
            fail(at, key, "no member \"" + name + "\" in zone \"" + z.name + "\" (members: " + list + ")");
        };
        std::vector<std::size_t> root(members.size());
        std::iota(root.begin(), root.end(), std::size_t{0});
        const auto find = [&](std::size_t v) {
            while (root[v] != v) v = root[v] = root[root[v]];
            return v;
        };
        z.links.clear();
        std::set<std::pair<std::size_t, std::size_t>> pairs;
        for (const auto& rl : raw) {
            ExplicitLink l = rl.link;
            l.a = rewrite(l.a, rw);
            l.b = rewrite(l.b, rw);
            const std::size_t a = index(l.a, rl.a_loc, rl.key + ".a");
            const std::size_t b = index(l.b, rl.b_loc, rl.key + ".b");
            if (a == b) fail(rl.b_loc, rl.key + ".b", "a link from \"" + l.a + "\" to itself");
            if (!pairs.insert({std::min(a, b), std::max(a, b)}).second)
                fail(rl.a_loc, rl.key, "a second link between \"" + l.a + "\" and \"" + l.b + "\" (one link a pair)");
            root[find(a)] = find(b);
            z.links.push_back(std::move(l));
        }
        for (std::size_t m = 1; m < members.size(); ++m)
            if (find(m) != find(0)) {
                const SourceLoc at = r.has("links") ? r.loc(*r.get("links")) : r.loc();
                fail(at, r.path_of("links"),
                     "members \"" + members[0] + "\" and \"" + members[m] + "\" of zone \"" + z.name +
                         "\" are not joined by the links");
            }
    }

    const std::string& origin_;
    struct NameInfo {
        SourceLoc at;     // where the zone's name is written
        std::string key;  // its key path
    };
    std::unordered_map<std::string, NameInfo> names_;  // every zone name
    std::vector<std::string> order_;                   // zone names in the order they were defined
    std::unordered_map<std::string, int> leaves_;      // leaf zone name -> nodes
    int zones_ = 0;
    int hosts_ = 0;
};

}  // namespace

Zone read_zones(const toml::table& zone, const std::string& origin) {
    ZoneReader reader(origin);
    Zone root = std::move(reader.read(zone, "zone", 0, "", {}).front());
    reader.check_zone_names_against_nodes();
    return root;
}

}  // namespace gridcoll::platform::detail
