// Entry points of the platform loader: read the file, parse the TOML (a syntax error becomes
// gridcoll::Error "file:line:column: message"), read the top-level keys, then the zone tree
// (load_zones.cpp) and the placement (load_placement.cpp).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/algorithms/text.hpp"
#include "limits.hpp"
#include "loader.hpp"
#include "toml_reader.hpp"

namespace gridcoll::platform {

namespace detail {

std::string read_file(const std::string& path) {
    return read_text_file(path, static_cast<std::uintmax_t>(kMaxFileBytes));
}

}  // namespace detail

Platform parse_platform(const std::string& toml_text, const std::string& origin) {
    toml::table doc;
    try {
        doc = toml::parse(toml_text, origin);
    } catch (const toml::parse_error& e) {
        throw Error(detail::loc_of(origin, e.source()).str() + ": " + std::string(e.description()));
    }
    Platform p;
    p.file = origin;
    const detail::TableReader top(doc, "", origin);
    top.only_keys({"name", "description", "source", "placement", "zone"});
    top.need("name");
    p.name = *top.string("name");
    if (p.name.empty()) top.fail_at("name", "empty name");
    p.description = top.string("description").value_or("");
    p.source = top.string("source").value_or("");
    top.need("zone");
    p.root = detail::read_zones(*top.table("zone"), origin);
    p.placement = detail::read_placement(top.table("placement"), p, SourceLoc{origin, 1, 1});
    return p;
}

Platform load_platform(const std::string& path) { return parse_platform(detail::read_file(path), path); }

}  // namespace gridcoll::platform
