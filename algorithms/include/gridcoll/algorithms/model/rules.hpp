// Decision rules files: (collective, communicator size range, message size range) -> Method.
// The second of the three decision layers of DESIGN.md (fixed defaults, a rules file, the
// model's argmin), like Open MPI's coll_tuned dynamic rules file but readable:
//
//   # comment (from '#' to the end of the line)
//   # <collective> [ranks <range>] [bytes <range>] <method>
//   bcast  ranks 2-16   bytes 0-1023       binomial
//   bcast  ranks 2-16   bytes 1024-8191    splitted-binary:seg=1K
//   bcast  ranks 2-16   bytes 8192-*       kary:k=4:seg=8K
//   bcast  ranks 17-*                      linear
//   barrier                                recursive-doubling
//
// - a range is `lo-hi` (inclusive), `lo-*` (no upper end), `*` (everything) or one number;
//   sizes may carry units (8, 1K, 64KiB, 4M: powers of two); omitted ranks / bytes = `*`;
// - the method is in its text form (gridcoll/method.hpp; names are the registry's), with only
//   the parameters its algorithm reads; files of older versions, which wrote
//   `<algorithm> segment <size> fanout <k>`, are read too;
// - structure (checked on load): for one collective, two communicator-size ranges are either
//   equal or disjoint, and within one communicator-size range the message-size ranges are
//   disjoint. So a rule never shadows another and a file reads as "communicator sizes ->
//   message sizes -> method". Gaps are allowed: a point no rule covers gets the fixed default.
// Every error is a gridcoll::Error "file:line: what" (unknown collective or algorithm with the
// valid names, bad range, overlap naming the other rule's line, ...).
//
// lookup() is meant to be called per operation: two binary searches, no allocation.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/collective.hpp"
#include "gridcoll/algorithms/model/decision.hpp"

namespace gridcoll::model {

inline constexpr int kAnyRanks = INT_MAX;               // ranks upper end of `lo-*`
inline constexpr std::uint64_t kAnyBytes = UINT64_MAX;  // bytes upper end of `lo-*`

struct Rule {
    Collective coll = Collective::Bcast;
    int ranks_lo = 1, ranks_hi = kAnyRanks;            // inclusive
    std::uint64_t bytes_lo = 0, bytes_hi = kAnyBytes;  // inclusive
    Method method;
    int line = 0;  // line in the file it was read from (0: made in memory)
    bool operator==(const Rule& o) const {
        return coll == o.coll && ranks_lo == o.ranks_lo && ranks_hi == o.ranks_hi && bytes_lo == o.bytes_lo &&
               bytes_hi == o.bytes_hi && method == o.method;
    }
};

// The fixed default (first layer): "binomial" where the collective has it, otherwise the
// registry's first algorithm of the collective; segment 0, fanout 2.
const Method& default_method(Collective c);

class Rules {
public:
    // No rules: every lookup gives default_method().
    Rules();
    // Checks every rule (known algorithm, fanout >= 1, no segment for an algorithm that does not
    // segment, lo <= hi, ranks >= 1, the structure above) and builds the lookup index. Errors
    // name "origin:line" (line = Rule::line).
    explicit Rules(std::vector<Rule> rules, const std::string& origin = "rules");

    const std::vector<Rule>& rules() const { return rules_; }
    bool empty() const { return rules_.empty(); }

    // The method of the rule covering (c, P, m), or nullptr when none does.
    const Method* find(Collective c, int ranks, std::uint64_t bytes) const noexcept;
    // find(), falling back to default_method(c).
    const Method& lookup(Collective c, int ranks, std::uint64_t bytes) const noexcept;

private:
    struct Band {
        std::uint64_t lo, hi;
        std::size_t rule;  // index into rules_ (stays valid when a Rules is copied)
    };
    struct Group {
        int lo, hi;
        std::vector<Band> bands;  // sorted by lo, disjoint
    };
    std::vector<Rule> rules_;
    std::vector<std::vector<Group>> index_;  // [collective] -> groups sorted by lo, disjoint
};

inline const Method& lookup(const Rules& rules, Collective c, int ranks, std::uint64_t bytes) noexcept {
    return rules.lookup(c, ranks, bytes);
}

// Reading. `origin` names the text in errors (a file name).
Rules parse_rules(std::string_view text, const std::string& origin);
Rules load_rules(const std::string& path);

// A compact rules set equivalent to a decision table at every one of its points: per
// communicator size, adjacent message sizes with the same method become one range; then
// adjacent communicator sizes with identical range lists become one. Each decision holds from
// its sample on up to the next sample (Open MPI's thresholds): the smallest sampled size is
// extended down to 0 bytes and to 1 rank, the largest up to `*`. Several tables (of different
// collectives; the same collective twice is an Error) go into one set.
Rules rules_from_decision(const DecisionTable& table);
Rules rules_from_decisions(const std::vector<DecisionTable>& tables);

// The text of a rules file (parse_rules(to_rules_text(r)) gives the same rules), in column-
// aligned lines; `comment` (may have several lines) is written first as '#' lines.
std::string to_rules_text(const Rules& rules, std::string_view comment = {});
void write_rules(std::ostream& out, const Rules& rules, std::string_view comment = {});
// Throws Error when the file cannot be written.
void write_rules(const std::string& path, const Rules& rules, std::string_view comment = {});

}  // namespace gridcoll::model
