// The block sizes of the irregular collectives (collective.hpp: Counts) and the patterns a
// benchmark or a simulation makes them from.
#include <algorithm>
#include <array>
#include <mutex>

#include "gridcoll/algorithms/collective.hpp"

namespace gridcoll {

namespace {

std::vector<std::uint64_t> prefix_sums(const std::vector<std::uint64_t>& v) {
    std::vector<std::uint64_t> p(v.size() + 1, 0);
    for (std::size_t i = 0; i < v.size(); ++i) p[i + 1] = p[i] + v[i];
    return p;
}

constexpr std::array<std::pair<CountPattern, std::string_view>, 3> kPatterns{{
    {CountPattern::Even, "even"},
    {CountPattern::Ramp, "ramp"},
    {CountPattern::Zeros, "zeros"},
}};

// Block of the pattern for index j of P, about m bytes on average, in whole elements.
std::uint64_t pattern_block(CountPattern p, int j, int P, std::uint64_t m, std::uint64_t elem) {
    const std::uint64_t elems = m / elem;
    switch (p) {
        case CountPattern::Even: return m;
        case CountPattern::Ramp:
            if (P < 2) return m;
            return 2 * elems * static_cast<std::uint64_t>(j) / static_cast<std::uint64_t>(P - 1) * elem;
        case CountPattern::Zeros: return j % 2 == 0 ? 2 * m : 0;
    }
    return m;
}

}  // namespace

Counts::Counts(std::vector<std::uint64_t> blocks)
    : ranks_(static_cast<int>(blocks.size())), bytes_(std::move(blocks)), offset_(prefix_sums(bytes_)) {}

Counts::Counts(int ranks, std::vector<std::uint64_t> matrix)
    : ranks_(ranks), matrix_(true), bytes_(std::move(matrix)), offset_(prefix_sums(bytes_)) {
    if (bytes_.size() != static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks))
        throw Error("an all-to-all count matrix for " + std::to_string(ranks) + " ranks needs " +
                    std::to_string(static_cast<std::uint64_t>(ranks) * static_cast<std::uint64_t>(ranks)) +
                    " entries (got " + std::to_string(bytes_.size()) + ")");
    std::vector<std::uint64_t> transposed(bytes_.size());
    for (int i = 0; i < ranks; ++i)
        for (int j = 0; j < ranks; ++j) transposed[index(j, i)] = bytes_[index(i, j)];
    column_ = prefix_sums(transposed);
}

int Counts::owner(std::uint64_t at) const {
    const auto end = offset_.begin() + ranks_;  // the last rank of the blocks starting at or before `at`
    return static_cast<int>(std::upper_bound(offset_.begin(), end, at) - offset_.begin()) - 1;
}

std::string_view to_string(CountPattern p) {
    for (const auto& [v, name] : kPatterns)
        if (v == p) return name;
    return "?";
}

CountPattern parse_count_pattern(std::string_view name) {
    for (const auto& [v, n] : kPatterns)
        if (n == name) return v;
    throw Error("unknown count pattern '" + std::string(name) + "' (valid: even, ramp, zeros)");
}

std::shared_ptr<const Counts> make_counts(Collective c, int ranks, std::uint64_t bytes, std::uint64_t elem,
                                          CountPattern pattern) {
    if (!is_irregular(c)) return nullptr;
    // The event simulator asks once per rank: keep the last one made.
    struct Key {
        Collective c;
        int ranks;
        std::uint64_t bytes, elem;
        CountPattern pattern;
        bool operator==(const Key&) const = default;
    };
    static std::mutex lock;
    static Key last{};
    static std::shared_ptr<const Counts> made;
    const Key key{c, ranks, bytes, elem, pattern};
    std::lock_guard<std::mutex> hold(lock);
    if (made && last == key) return made;
    if (elem == 0) elem = 1;
    if (c == Collective::Alltoallv) {
        std::vector<std::uint64_t> m(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks));
        for (int i = 0; i < ranks; ++i)
            for (int j = 0; j < ranks; ++j)
                m[static_cast<std::size_t>(i) * static_cast<std::size_t>(ranks) + static_cast<std::size_t>(j)] =
                    pattern_block(pattern, (i + j) % ranks, ranks, bytes, elem);
        made = std::make_shared<const Counts>(ranks, std::move(m));
    } else {
        std::vector<std::uint64_t> b(static_cast<std::size_t>(ranks));
        for (int j = 0; j < ranks; ++j) b[static_cast<std::size_t>(j)] = pattern_block(pattern, j, ranks, bytes, elem);
        made = std::make_shared<const Counts>(std::move(b));
    }
    last = key;
    return made;
}

}  // namespace gridcoll
