// Private to the loader: typed, checked reading of one TOML table of a platform description.
//
// A TableReader knows the table's key path ("zone.zones[0]") and the description's origin, so
// every error it raises reads "file:line:column: key.path: what", at the offending node's
// position. It rejects keys it was not told about, wrong value types and missing required keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/platforms/platform.hpp"
#include "tomlpp.hpp"

namespace gridcoll::platform::detail {

// "file:line:column" of a TOML node (line and column at least 1).
SourceLoc loc_of(const std::string& origin, const toml::source_region& where);
// gridcoll::Error "file:line:column: key: what".
[[noreturn]] void fail(const SourceLoc& at, const std::string& key, const std::string& what);
// "a string", "an integer", ... for messages.
std::string type_name(const toml::node& n);

class TableReader {
public:
    TableReader(const toml::table& table, std::string path, const std::string& origin);

    const std::string& path() const { return path_; }
    const std::string& origin() const { return origin_; }
    std::string path_of(std::string_view key) const;
    SourceLoc loc() const { return loc_of(origin_, table_.source()); }
    SourceLoc loc(const toml::node& n) const { return loc_of(origin_, n.source()); }

    // Throws at the first key not in `allowed`.
    void only_keys(const std::vector<std::string_view>& allowed) const;

    // nullptr when the key is absent.
    const toml::node* get(std::string_view key) const;
    bool has(std::string_view key) const { return get(key) != nullptr; }
    // Throws "missing required key" at the table when absent.
    const toml::node& need(std::string_view key) const;

    std::optional<std::string> string(std::string_view key) const;
    std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max) const;
    std::optional<bool> boolean(std::string_view key) const;
    std::optional<double> number(std::string_view key) const;  // integer or float
    // Strings with units (see parse_time etc.); range checks are the caller's (use fail()).
    std::optional<double> time(std::string_view key) const;
    std::optional<double> bandwidth(std::string_view key) const;
    std::optional<double> speed(std::string_view key) const;
    const toml::table* table(std::string_view key) const;
    const toml::array* array(std::string_view key) const;

    [[noreturn]] void fail_at(std::string_view key, const std::string& what) const;  // at the key's value
    [[noreturn]] void fail_here(const std::string& what) const;                      // at the table

private:
    const toml::node* typed(std::string_view key, toml::node_type type, const char* expected) const;
    std::optional<double> with_unit(std::string_view key, double (*parse)(const std::string&),
                                    const char* example) const;

    const toml::table& table_;
    std::string path_;
    const std::string& origin_;
};

// Reads a link table { latency, bandwidth [, loss, jitter] } (plus `extra` keys, which the
// caller reads); checks latency >= 0, bandwidth > 0, loss in [0, 1), jitter >= 0.
LinkSpec read_link(const TableReader& link, const std::vector<std::string_view>& extra = {});

}  // namespace gridcoll::platform::detail
