// Entry points of the platform loader: read the file, parse the TOML (a syntax error becomes
// gridcoll::Error "file:line:column: message"), read the top-level keys, then the zone tree
// (load_zones.cpp) and the placement (load_placement.cpp).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "gridcoll/collective.hpp"
#include "limits.hpp"
#include "loader.hpp"
#include "toml_reader.hpp"

namespace gridcoll::platform {

namespace detail {

std::string read_file(const std::string& path) {
    const auto bad = [&](const std::string& why) { return Error("cannot read \"" + path + "\" (" + why + ")"); };
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) throw bad("no such file");
    if (!std::filesystem::is_regular_file(status)) throw bad("not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw bad(ec.message());
    if (size > static_cast<std::uintmax_t>(kMaxFileBytes))
        throw bad("larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw bad("cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw bad("read error");
    return text.str();
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
