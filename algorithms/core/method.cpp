// The text form of methods (gridcoll/method.hpp): a small recursive-descent parser, the
// canonical printer, and the registry checks.
#include "gridcoll/algorithms/method.hpp"

#include <charconv>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/registry.hpp"
#include "gridcoll/algorithms/text.hpp"
#include "gridcoll/algorithms/units.hpp"

namespace gridcoll {

bool MethodParams::operator==(const MethodParams& o) const {
    return segment == o.segment && fanout == o.fanout && cluster_level == o.cluster_level &&
           wan_window == o.wan_window && equal_shares == o.equal_shares && trees == o.trees && runs == o.runs && hub == o.hub &&
           cut_shards == o.cut_shards && levels == o.levels;
}

namespace {

bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
}

// A parsed method and which keys its text gave (the rest may take the command line's defaults).
struct Parsed {
    Method method;
    bool seg_given = false, k_given = false, level_given = false, win_given = false, shares_given = false,
         trees_given = false, runs_given = false, hub_given = false, shards_given = false;
    std::vector<Parsed> levels;
};

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    Parsed parse() {
        Parsed m = method();
        if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
        return m;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw Error("method '" + std::string(text_) + "': " + why + " at character " + std::to_string(pos_ + 1) +
                    " (form: name[:key=value...][[level method|...]], e.g. kary:k=4:seg=64K)");
    }
    bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
    std::string_view word() {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
        return text_.substr(start, pos_ - start);
    }

    // Sets the method's key `key` (its value starting at character value_at) in p.
    void set_key(Parsed& p, std::string_view key, std::string_view value, std::size_t value_at) {
        Method& m = p.method;
        const auto twice = [&](bool& seen) {
            if (seen) fail("parameter '" + std::string(key) + "' given twice");
            seen = true;
        };
        // A whole number of at least `min`, for the key `what`.
        const auto whole = [&](int min, const char* what) {
            int v = 0;
            const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
            if (r.ec != std::errc() || r.ptr != value.data() + value.size() || v < min) {
                pos_ = value_at;
                fail(std::string(what) + " must be a whole number >= " + std::to_string(min) + ", not '" +
                     std::string(value) + "'");
            }
            return v;
        };
        if (key == "seg") {
            twice(p.seg_given);
            m.params.segment = parse_bytes(value);
        } else if (key == "k") {
            twice(p.k_given);
            m.params.fanout = whole(1, "k");
        } else if (key == "level") {
            twice(p.level_given);
            m.params.cluster_level = whole(0, "level");
        } else if (key == "win") {
            twice(p.win_given);
            m.params.wan_window = whole(1, "win");
        } else if (key == "shares") {
            twice(p.shares_given);
            if (value != "equal" && value != "bandwidth") {
                pos_ = value_at;
                fail("shares must be 'equal' or 'bandwidth', not '" + std::string(value) + "'");
            }
            m.params.equal_shares = value == "equal";
        } else if (key == "trees") {
            twice(p.trees_given);
            m.params.trees = whole(1, "trees");
        } else if (key == "runs") {
            twice(p.runs_given);
            m.params.runs = value == "auto" ? MethodParams::kAutoRuns : whole(1, "runs");
        } else if (key == "hub") {
            twice(p.hub_given);
            if (value != "0" && value != "1") {
                pos_ = value_at;
                fail("hub must be 0 or 1, not '" + std::string(value) + "'");
            }
            m.params.hub = value == "1";
        } else if (key == "shards") {
            twice(p.shards_given);
            if (value != "cut" && value != "equal") {
                pos_ = value_at;
                fail("shards must be 'equal' or 'cut', not '" + std::string(value) + "'");
            }
            m.params.cut_shards = value == "cut";
        } else {
            pos_ = value_at - key.size() - 1;
            fail("unknown parameter '" + std::string(key) +
                 "' (known: seg = segment size, k = fan-out, level = cluster level, win = WAN window, "
                 "shares = equal or bandwidth, trees = packed trees a source, runs = runs (or auto) a packed "
                 "broadcast's streams are handed in, hub = 0 or 1: a packed broadcast's two sinks and a hub a site, "
                 "shards = equal or cut: a packed allreduce's shards on a full mesh of uneven links)");
        }
    }

    Parsed method() {
        Parsed p;
        Method& m = p.method;
        m.algorithm = std::string(word());
        if (m.algorithm.empty()) fail("expected an algorithm name");
        while (at(':')) {
            ++pos_;
            const std::string_view key = word();
            if (key.empty()) fail("expected a parameter name after ':'");
            if (!at('=')) fail("parameter '" + std::string(key) + "' needs '=value'");
            ++pos_;
            const std::size_t value_at = pos_;
            const std::string_view value = word();
            if (value.empty()) fail("parameter '" + std::string(key) + "' has no value");
            set_key(p, key, value, value_at);
        }
        if (at('[')) {
            ++pos_;
            p.levels.push_back(method());
            while (at('|')) {
                ++pos_;
                p.levels.push_back(method());
            }
            if (!at(']')) fail("expected '|' or ']'");
            ++pos_;
            for (const Parsed& l : p.levels) m.params.levels.push_back(l.method);
        }
        return p;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// Checks `m` against the registry and resets what its algorithm does not read. Keys the text
// gave (`given`; all of them when null) must be read by the algorithm; the others take
// `defaults` where the algorithm reads them.
void canonicalize(Collective c, Method& m, const Parsed* given, const MethodParams& defaults) {
    if (m.algorithm == kNativeMethod || m.algorithm == kAutoMethod) {
        if (!(m.params == MethodParams{}))
            throw Error("method '" + to_string(m) + "': '" + m.algorithm + "' takes no parameters");
        return;
    }
    const Algorithm& a = find_algorithm(c, m.algorithm);  // throws listing the valid names
    const MethodParams plain;
    const bool seg_given = given ? given->seg_given : m.params.segment != plain.segment;
    const bool k_given = given ? given->k_given : m.params.fanout != plain.fanout;
    const bool level_given = given ? given->level_given : m.params.cluster_level != plain.cluster_level;
    const bool win_given = given ? given->win_given : m.params.wan_window != plain.wan_window;
    const bool shares_given = given ? given->shares_given : m.params.equal_shares != plain.equal_shares;
    const bool trees_given = given ? given->trees_given : m.params.trees != plain.trees;
    const bool runs_given = given ? given->runs_given : m.params.runs != plain.runs;
    const bool hub_given = given ? given->hub_given : m.params.hub != plain.hub;
    const bool shards_given = given ? given->shards_given : m.params.cut_shards != plain.cut_shards;
    const auto refuse = [&](const char* key, const char* what) {
        throw Error("method '" + to_string(m) + "': " + std::string(to_string(c)) + " algorithm '" + a.name +
                    "' has no " + what + " (" + key + ")");
    };
    if (seg_given && !a.segmented) refuse("seg", "segment size");
    if (k_given && !a.uses_fanout) refuse("k", "fan-out");
    if (level_given && !a.uses_cluster_level) refuse("level", "cluster level");
    if (win_given && !a.uses_wan_window) refuse("win", "WAN window");
    if (shares_given && !a.uses_shares) refuse("shares", "choice of WAN shares");
    if (trees_given && !a.uses_trees) refuse("trees", "packed trees");
    if (runs_given && !a.uses_runs) refuse("runs", "runs of handed streams");
    if (hub_given && !a.uses_runs) refuse("hub", "sinks and hub a site");
    if (shards_given && !a.uses_cut_shards) refuse("shards", "choice of shards");
    if (!m.params.levels.empty() && !a.uses_levels) refuse("[...]", "per-level methods");
    m.params.segment = !a.segmented ? plain.segment : seg_given ? m.params.segment : defaults.segment;
    m.params.fanout = !a.uses_fanout ? plain.fanout : k_given ? m.params.fanout : defaults.fanout;
    m.params.cluster_level = !a.uses_cluster_level ? plain.cluster_level : level_given ? m.params.cluster_level : defaults.cluster_level;
    m.params.wan_window = !a.uses_wan_window ? plain.wan_window : win_given ? m.params.wan_window : defaults.wan_window;
    m.params.equal_shares = a.uses_shares && m.params.equal_shares;
    m.params.trees = !a.uses_trees ? plain.trees : trees_given ? m.params.trees : defaults.trees;
    m.params.runs = !a.uses_runs ? plain.runs : runs_given ? m.params.runs : defaults.runs;
    m.params.hub = !a.uses_runs ? plain.hub : hub_given ? m.params.hub : defaults.hub;
    m.params.cut_shards = !a.uses_cut_shards ? plain.cut_shards : shards_given ? m.params.cut_shards : defaults.cut_shards;
    for (std::size_t i = 0; i < m.params.levels.size(); ++i) {
        Method& level = m.params.levels[i];
        if (level.algorithm == kNativeMethod || level.algorithm == kAutoMethod ||
            find_algorithm(c, level.algorithm).needs_topology)
            throw Error("method '" + to_string(m) + "': level " + std::to_string(i) + " names '" + level.algorithm +
                        "'; the method at a level must be a flat algorithm of the registry");
        canonicalize(c, level, given ? &given->levels[i] : nullptr, plain);
    }
}

}  // namespace

std::string to_string(const Method& m) {
    const MethodParams plain;
    std::string s = m.algorithm;
    if (m.params.fanout != plain.fanout) s += ":k=" + std::to_string(m.params.fanout);
    if (m.params.segment != plain.segment) s += ":seg=" + format_bytes(m.params.segment);
    if (m.params.cluster_level != plain.cluster_level) s += ":level=" + std::to_string(m.params.cluster_level);
    if (m.params.wan_window != plain.wan_window) s += ":win=" + std::to_string(m.params.wan_window);
    if (m.params.equal_shares != plain.equal_shares) s += ":shares=equal";
    if (m.params.trees != plain.trees) s += ":trees=" + std::to_string(m.params.trees);
    if (m.params.runs != plain.runs)
        s += ":runs=" + (m.params.runs == MethodParams::kAutoRuns ? std::string("auto") : std::to_string(m.params.runs));
    if (m.params.hub != plain.hub) s += ":hub=1";
    if (m.params.cut_shards != plain.cut_shards) s += ":shards=cut";
    if (!m.params.levels.empty()) {
        s += '[';
        for (std::size_t i = 0; i < m.params.levels.size(); ++i) s += (i ? "|" : "") + to_string(m.params.levels[i]);
        s += ']';
    }
    return s;
}

Method parse_method_text(std::string_view text) { return Parser(text).parse().method; }

Method check_method(Collective c, const Method& m) {
    Method out = m;
    canonicalize(c, out, nullptr, MethodParams{});
    return out;
}

Method parse_method(Collective c, std::string_view text, const MethodParams& defaults) {
    Parsed p = Parser(text).parse();
    canonicalize(c, p.method, &p, defaults);
    return p.method;
}

std::vector<Method> parse_method_list(Collective c, std::string_view text, const MethodParams& defaults,
                                      const MethodListOptions& allow) {
    std::vector<Method> out;
    for (const std::string& item : split_list(text)) {
        if (item == "all") {
            for (const Algorithm* a : algorithms_for(c)) out.push_back(parse_method(c, a->name, defaults));
            continue;
        }
        if (item == kNativeMethod && !allow.allow_native)
            throw Error("'native' (the MPI library's own collective) needs an MPI backend");
        if (item == kAutoMethod && !allow.allow_auto) throw Error("'auto' is not available here");
        out.push_back(parse_method(c, item, defaults));
    }
    if (out.empty()) throw Error("no method given");
    return out;
}

}  // namespace gridcoll
