// Reading the [placement] table of a platform description (FORMAT.md "Placement"): the policy,
// the rank count, the host list of policy "file" (inline `hosts` or a `file` of one host name per
// line, relative to the description), and the checks against the platform's hosts and cores.
#include <filesystem>
#include <unordered_map>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "limits.hpp"
#include "loader.hpp"
#include "placement.hpp"
#include "toml_reader.hpp"

namespace gridcoll::platform::detail {

namespace {

const char* kOversubscribeHint = " (set placement.oversubscribe = true to allow)";

// One host of a "file" placement as written, and where.
struct Listed {
    std::string host;
    SourceLoc loc;
    std::string key;
};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Lines of a ranks file: one host name per line; '#' starts a comment; blank lines are skipped.
std::vector<Listed> read_ranks_file(const TableReader& r, const std::string& base_file) {
    const std::string name = *r.string("file");
    const SourceLoc at = r.loc(*r.get("file"));
    const std::filesystem::path path = std::filesystem::path(base_file).parent_path() / name;
    std::string text;
    try {
        text = read_file(path.string());
    } catch (const Error& e) {
        fail(at, "placement.file", e.what());
    }
    std::vector<Listed> out;
    std::size_t start = 0;
    int line = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        ++line;
        std::string s = text.substr(start, end - start);
        start = end + 1;
        if (const auto hash = s.find('#'); hash != std::string::npos) s.erase(hash);
        s = trim(s);
        if (s.empty()) continue;
        const SourceLoc loc{path.string(), line, 1};
        if (s.find_first_of(" \t") != std::string::npos)
            fail(loc, "placement.file", "one host name per line, got \"" + s + "\"");
        if (out.size() >= static_cast<std::size_t>(kMaxRanks))
            fail(loc, "placement.file", "more than " + std::to_string(kMaxRanks) + " ranks");
        out.push_back({s, loc, "placement.file"});
    }
    if (out.empty()) fail(at, "placement.file", "\"" + path.string() + "\" lists no host");
    return out;
}

std::vector<Listed> read_inline_hosts(const TableReader& r) {
    const toml::array& a = *r.array("hosts");
    if (a.empty()) r.fail_at("hosts", "no hosts listed");
    if (a.size() > static_cast<std::size_t>(kMaxRanks))
        r.fail_at("hosts", "more than " + std::to_string(kMaxRanks) + " ranks");
    std::vector<Listed> out;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string key = "placement.hosts[" + std::to_string(i) + "]";
        if (!a[i].is_string()) fail(r.loc(a[i]), key, "expected a host name (a string), got " + type_name(a[i]));
        out.push_back({a[i].as_string()->get(), r.loc(a[i]), key});
    }
    return out;
}

}  // namespace

Placement read_placement(const toml::table* t, const Platform& p, const SourceLoc& doc) {
    const std::int64_t cores = total_cores(p.root);

    Placement pl;
    pl.loc = doc;
    if (!t) {
        if (cores > kMaxRanks)
            fail(doc, "placement",
                 std::to_string(cores) + " cores, one rank each, is more than the limit of " +
                     std::to_string(kMaxRanks) + " ranks; set placement.ranks");
        return pl;
    }
    TableReader r(*t, "placement", p.file);
    r.only_keys({"policy", "ranks", "oversubscribe", "file", "hosts"});
    pl.loc = r.loc();
    const std::string policy = r.string("policy").value_or("block");
    if (policy == "block")
        pl.policy = PlacementPolicy::Block;
    else if (policy == "round-robin")
        pl.policy = PlacementPolicy::RoundRobin;
    else if (policy == "file")
        pl.policy = PlacementPolicy::File;
    else
        r.fail_at("policy", "unknown placement policy \"" + policy + "\" (block, round-robin, file)");
    pl.ranks = static_cast<int>(r.integer("ranks", 1, kMaxRanks).value_or(0));
    pl.oversubscribe = r.boolean("oversubscribe").value_or(false);

    if (pl.policy != PlacementPolicy::File) {
        for (const char* k : {"file", "hosts"})
            if (r.has(k)) r.fail_at(k, "only with policy = \"file\"");
        const std::int64_t ranks = pl.ranks ? pl.ranks : cores;
        if (ranks > kMaxRanks)
            r.fail_here(std::to_string(cores) + " cores, one rank each, is more than the limit of " +
                        std::to_string(kMaxRanks) + " ranks; set placement.ranks");
        if (ranks > cores && !pl.oversubscribe)
            r.fail_at("ranks", "more ranks than cores: " + std::to_string(ranks) + " ranks on " +
                                   std::to_string(cores) + " cores" + kOversubscribeHint);
        return pl;
    }

    if (r.has("file") && r.has("hosts")) r.fail_at("hosts", "give either file or hosts, not both");
    if (!r.has("file") && !r.has("hosts"))
        r.fail_here("policy = \"file\" needs file = \"<ranks file>\" or hosts = [\"<host>\", ...]");
    const std::vector<Listed> listed = r.has("file") ? read_ranks_file(r, p.file) : read_inline_hosts(r);
    std::unordered_map<std::string, std::pair<int, int>> load;  // host -> (ranks placed, cores)
    for (const auto& h : hosts(p)) load.emplace(h.name, std::make_pair(0, h.cores));
    for (const auto& l : listed) {
        const auto it = load.find(l.host);
        if (it == load.end()) fail(l.loc, l.key, "unknown host \"" + l.host + "\"");
        if (++it->second.first > it->second.second && !pl.oversubscribe)
            fail(l.loc, l.key,
                 "more ranks than cores on host \"" + l.host + "\": " + std::to_string(it->second.first) +
                     " ranks on " + std::to_string(it->second.second) + (it->second.second == 1 ? " core" : " cores") +
                     kOversubscribeHint);
        pl.hosts.push_back(l.host);
    }
    if (pl.ranks && pl.ranks != static_cast<int>(pl.hosts.size()))
        r.fail_at("ranks", "ranks = " + std::to_string(pl.ranks) + " but " + std::to_string(pl.hosts.size()) +
                               " hosts are listed");
    return pl;
}

}  // namespace gridcoll::platform::detail
