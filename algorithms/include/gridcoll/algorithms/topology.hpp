// The multilevel view of a communicator (paper 001, Karonis et al.): for each rank, its depth
// and its cluster id at every level, level 0 being the widest (e.g. the wide-area network:
// all ranks share it), the deepest level the node (ranks that share memory). Two ranks
// communicate over level l's network when l is the deepest level whose cluster they share.
//
// A Topology is built from a platform description and a rank placement (platforms/), from a
// SimGrid XML zone tree, or read from a rank-map file; the algorithms only read it.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <string>
#include <tuple>
#include <vector>

#include "gridcoll/algorithms/site_network.hpp"

namespace gridcoll {

// Link parameters of one level, where known (a platform's numbers; measured ones come later).
struct LevelLink {
    double latency_s = 0;      // one way
    double bandwidth_Bps = 0;  // bytes per second; 0 = unknown
};

class Topology {
public:
    Topology() = default;
    // `clusters[r]` lists rank r's cluster ids from level 0 down to its depth - 1. Cluster ids
    // need only be unique within a level. `level_names` names each level (e.g. "wan", "lan",
    // "node"); `links` gives, per level, the parameters of the network joining that level's
    // clusters' members (optional, may be shorter than the number of levels).
    // Throws Error if the ranks disagree (e.g. two ranks share a level-2 cluster but not their
    // level-1 cluster).
    Topology(std::vector<std::vector<int>> clusters, std::vector<std::string> level_names,
             std::vector<std::optional<LevelLink>> links = {});

    // Every rank in one cluster of one level (a flat machine).
    static Topology flat(int size);

    int size() const { return static_cast<int>(depth_.size()); }
    int levels() const { return static_cast<int>(level_names_.size()); }
    int depth(int rank) const { return depth_[static_cast<std::size_t>(rank)]; }
    // Cluster id of `rank` at `level` (level < depth(rank); -1 below it).
    int cluster(int rank, int level) const { return ids_[index(rank, level)]; }
    const std::string& level_name(int level) const { return level_names_[static_cast<std::size_t>(level)]; }
    std::optional<LevelLink> link(int level) const;
    // Links that differ between the members of a level's clusters (an explicit WAN: one link
    // per site pair, each with its own numbers): the link of level `level` between its member
    // clusters `a` and `b` (cluster ids at level + 1; either direction). pair_link() falls back
    // to link(level) where none was set. Error for a level without one below it, a negative id,
    // a <= 0 bandwidth or a negative latency.
    void set_pair_link(int level, int a, int b, LevelLink link);
    std::optional<LevelLink> pair_link(int level, int a, int b) const;
    bool has_pair_links(int level) const;
    // Every pair link set at `level`: (a, b, link) with a < b, in order.
    std::vector<std::tuple<int, int, LevelLink>> pair_links(int level) const;
    // Links that differ between a level's clusters (zones of one depth with numbers of their
    // own, as karonis-grid's machines): the link inside cluster `id` of level `level`, which
    // carries the messages between ranks whose deepest shared cluster it is. cluster_link()
    // falls back to link(level) where none was set. Error for a level out of range, a negative
    // id, a <= 0 bandwidth or a negative latency.
    void set_cluster_link(int level, int id, LevelLink link);
    std::optional<LevelLink> cluster_link(int level, int id) const;
    // Every cluster link set at `level`: (id, link), in order of id.
    std::vector<std::pair<int, LevelLink>> cluster_links(int level) const;

    // Deepest level whose cluster ranks a and b share (-1 if none: they share nothing). Throws
    // Error for a rank out of range.
    int common_level(int a, int b) const;
    // The same without the range check (the event simulator's inner loop).
    int common_level_unchecked(int a, int b) const noexcept {
        const int* ca = ids_.data() + index(a, 0);
        const int* cb = ids_.data() + index(b, 0);
        const int n = levels();
        int l = 0;
        while (l < n && ca[l] >= 0 && ca[l] == cb[l]) ++l;
        return l - 1;
    }
    // True when every rank shares every level with every other (one cluster per level, equal
    // depths): no hierarchy for a hierarchical algorithm to follow.
    bool is_flat() const;
    // The Topology of ranks 0 .. n-1 alone (levels, names and links kept): a job that uses the
    // first n slots of a placement. Throws Error unless 1 <= n <= size().
    Topology first(int n) const;
    // The Topology of the listed ranks alone, in that order (rank i of the result is ranks[i]):
    // a sub-communicator's. Error for a rank out of range or listed twice.
    Topology select(const std::vector<int>& ranks) const;
    // Gateways (paper 004): rank `rank` is the gateway of its cluster at `level` — every message
    // into or out of that cluster passes its node — so hierarchical algorithms take it as that
    // cluster's master (compose.hpp). At most one per cluster; Error for a rank out of range, a
    // level at or below the rank's depth, or a second gateway.
    void set_gateway(int rank, int level);
    // The gateway rank of `rank`'s cluster at `level`, or -1 (none, or level outside its depth).
    int gateway(int rank, int level) const;
    // The ranks of `rank`'s cluster at `level`, in increasing order.
    std::vector<int> members(int rank, int level) const;

    // The network joining the clusters of level `level` (the sites) as the platform describes
    // it (site_network.hpp): links, routers, the route between every two sites. nullptr where
    // none was given (a rank map without one, SimGrid XML): then the sites' links are the
    // level above's (link, pair_link). check()s it; Error for a level out of range.
    void set_site_network(int level, SiteNetwork net);
    const SiteNetwork* site_network(int level) const;

    // Text form (the rank map):
    //   # gridcoll rank map
    //   levels wan lan node
    //   link <level> <latency_s> <bandwidth_Bps>      (optional, per level)
    //   pairlink <level> <a> <b> <latency_s> <bandwidth_Bps>   (optional: set_pair_link)
    //   clusterlink <level> <id> <latency_s> <bandwidth_Bps>   (optional: set_cluster_link)
    //   rank <r> <id at level 0> <id at level 1> ...  (one line per rank, depth = number of ids)
    //   gateway <r> <level>                           (optional: set_gateway(r, level))
    //   netlink / netjoin / route <level> ...         (optional: set_site_network, site_network.hpp)
    std::string to_text() const;
    // Parses the text form; errors name `origin` and the line.
    static Topology from_text(const std::string& text, const std::string& origin);
    // Reads a rank-map file; errors name the file (and line).
    static Topology load(const std::string& path);

private:
    std::size_t index(int rank, int level) const {
        return static_cast<std::size_t>(rank) * level_names_.size() + static_cast<std::size_t>(level);
    }
    std::vector<int> ids_;    // size() x levels(): the cluster ids, -1 below a rank's depth
    std::vector<int> depth_;  // per rank
    std::vector<std::string> level_names_;
    std::vector<std::optional<LevelLink>> links_;
    std::map<std::pair<int, int>, int> gateways_;  // (level, cluster id) -> rank
    std::map<std::tuple<int, int, int>, LevelLink> pair_links_;  // (level, lower id, higher id)
    std::map<std::pair<int, int>, LevelLink> cluster_links_;       // (level, id)
    std::map<int, SiteNetwork> site_networks_;                     // the sites' level -> network
};

}  // namespace gridcoll
