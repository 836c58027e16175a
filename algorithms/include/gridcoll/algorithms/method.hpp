// A method: an algorithm of the registry with its parameters — and, for a hierarchical
// algorithm, the method it uses at each level of the Topology. One readable text form serves
// the command lines, rules files and result rows:
//
//   binomial                      an algorithm with its default parameters
//   kary:k=4:seg=64K              parameters as key=value after ':' (k = fan-out, seg = segment,
//                                 level = the Topology level a two-layer algorithm calls cluster,
//                                 win = segments in flight per WAN link, shares=equal: the
//                                 multi-tree algorithms' shares equal, not by link bandwidth,
//                                 trees = the packed methods' trees kept per source, at most,
//                                 runs = runs a packed broadcast's streams are handed in at a
//                                 site, or auto; default none)
//   multilevel:seg=64K[linear|kary:k=4|binomial]
//                                 per-level methods, widest level first, between [ and ]
//   native, auto                  the MPI library's own collective; chosen at run time
//
// The text holds no commas or spaces, so a list of methods is comma-separated and a method is
// one word in a rules file and one field in a CSV row. Keys an algorithm does not read are
// refused; keys left out take their defaults (MethodParams), and to_string() prints only what
// differs from them, so equal methods have equal texts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gridcoll {

enum class Collective : std::uint8_t;
struct Method;

// Parameters of a method. Zero segment means "do not segment".
struct MethodParams {
    std::uint64_t segment = 0;   // seg: bytes per segment
    int fanout = 2;              // k: tree fan-out (k-ary tree) or number of chains (k-chain)
    int cluster_level = 1;       // level: which Topology level counts as "cluster" (two-layer algorithms)
    int wan_window = 2;          // win: segments in flight per WAN link (the multi-tree algorithms)
    bool equal_shares = false;   // shares=equal (or =bandwidth, the default): the multi-tree algorithms
    int trees = 0;               // trees: the packed methods' trees kept per source (0: the planner's choice)
    int runs = 0;                // runs: runs a packed broadcast's streams are handed in (0 or 1: none; kAutoRuns: its rule)
    static constexpr int kAutoRuns = -1;  // runs=auto
    bool hub = false;            // hub=1: a packed broadcast's streams reach sites of four members or more
                                 // by two sinks and a hub (trees of one rate only; default one sink)
    bool cut_shards = false;     // shards=cut (or =equal, the default): a packed allreduce's shards on a
                                 // full mesh of uneven links sized to the sites' cuts (unit_trees.hpp)
    std::vector<Method> levels;  // [..|..]: hierarchical algorithms: the method at each level
    bool operator==(const MethodParams& o) const;
};

struct Method {
    std::string algorithm;  // a registry name, "native" or "auto"
    MethodParams params;

    Method() = default;
    Method(std::string name, MethodParams p) : algorithm(std::move(name)), params(std::move(p)) {}
    // A flat method: Method{"kary", 1024, 4} is kary with 1 KiB segments and fan-out 4.
    Method(std::string name, std::uint64_t segment = 0, int fanout = 2) : algorithm(std::move(name)) {
        params.segment = segment;
        params.fanout = fanout;
    }
    Method(const char* name) : Method(std::string(name)) {}
    bool operator==(const Method& o) const { return algorithm == o.algorithm && params == o.params; }
};

inline constexpr std::string_view kNativeMethod = "native";  // the MPI library's own collective
inline constexpr std::string_view kAutoMethod = "auto";      // chosen per operation at run time

// The text form (see above). Parameters at their defaults are left out.
std::string to_string(const Method& m);

// Syntax only: any name, the known keys with valid values. Throws Error naming the text and
// what is wrong in it.
Method parse_method_text(std::string_view text);

// Checks `m` against the registry for collective `c` — a known algorithm (or native / auto),
// only the parameters it reads, per-level methods only for hierarchical algorithms — and
// returns it in canonical form: a parameter the algorithm does not read is reset to its default.
// Throws Error listing the valid names or naming the refused key.
Method check_method(Collective c, const Method& m);

// parse_method_text + check_method, with `defaults` for the keys the text does not give (the
// command line's --segment / --fanout), applied only where the algorithm reads them.
Method parse_method(Collective c, std::string_view text, const MethodParams& defaults = {});

// A comma-separated list; "all" stands for every registry algorithm of the collective (with
// `defaults`), "native" and "auto" are kept when `allow` says so.
struct MethodListOptions {
    bool allow_native = true;
    bool allow_auto = true;
};
std::vector<Method> parse_method_list(Collective c, std::string_view text, const MethodParams& defaults = {},
                                      const MethodListOptions& allow = {});

}  // namespace gridcoll
