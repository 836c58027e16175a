#include "setting_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gridcoll/algorithms/error.hpp"

namespace gridcoll::backends {

namespace {

std::string others_with(const std::string& key) {
    std::string names;
    for (const BackendInfo& b : backend_list())
        if (b.find(key)) names += (names.empty() ? "" : ", ") + b.name;
    return names;
}

std::string option_of(const Setting& s) {
    const std::string f = s.flag.substr(s.flag.find_last_of(',') + 1);
    return f[0] == '!' ? f.substr(1) : f;
}

void check_value(const BackendInfo& b, const Setting& s, const std::vector<std::string>& v) {
    const std::string what = b.name + " backend: " + s.key + " (" + option_of(s) + ")";
    if (v.size() != 1 && s.type != SettingType::List && s.type != SettingType::Pairs)
        throw Error(what + " takes one value (got " + std::to_string(v.size()) + ")");
    for (const std::string& x : v) {
        if (s.type == SettingType::Flag && x != "true" && x != "false")
            throw Error(what + " is true or false (got '" + x + "')");
        if (s.type == SettingType::Number) {
            char* end = nullptr;
            const double value = std::strtod(x.c_str(), &end);
            if (x.empty() || *end != '\0' || !std::isfinite(value))
                throw Error(what + " must be a finite number (got '" + x + "')");
        }
        if (s.type == SettingType::Pairs && (x.find('=') == std::string::npos || x.front() == '='))
            throw Error(what + " takes KEY=VALUE (got '" + x + "')");
        if (!s.choices.empty() && std::find(s.choices.begin(), s.choices.end(), x) == s.choices.end()) {
            std::string valid;
            for (const auto& c : s.choices) valid += (valid.empty() ? "" : ", ") + c;
            throw Error(what + " must be one of " + valid + " (got '" + x + "')");
        }
    }
}

}  // namespace

SettingReader::SettingReader(const BackendInfo& backend, const SettingValues& values) : backend_(backend), values_(values) {
    for (const auto& [key, v] : values) {
        const Setting* s = backend.find(key);
        if (!s) {
            const std::string with = others_with(key);
            throw Error("backend '" + backend.name + "' has no setting '" + key + "'" +
                        (with.empty() ? "" : " (a setting of: " + with + ")"));
        }
        check_value(backend, *s, v);
    }
}

const Setting& SettingReader::setting(const std::string& key) const {
    const Setting* s = backend_.find(key);
    if (!s) throw Error("internal: backend '" + backend_.name + "' reads an undeclared setting '" + key + "'");
    return *s;
}

bool SettingReader::given(const std::string& key) const { return values_.count(key) > 0; }

std::string SettingReader::text(const std::string& key) const {
    const Setting& s = setting(key);
    auto it = values_.find(key);
    return it == values_.end() || it->second.empty() ? s.fallback : it->second.front();
}

bool SettingReader::flag(const std::string& key) const { return text(key) == "true"; }

double SettingReader::number(const std::string& key) const {
    const std::string t = text(key);
    return t.empty() ? 0.0 : std::strtod(t.c_str(), nullptr);
}

std::vector<std::string> SettingReader::list(const std::string& key) const {
    setting(key);
    auto it = values_.find(key);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> SettingReader::mca(const std::string& key) const {
    std::vector<std::string> out;
    for (const std::string& kv : list(key)) {
        const auto eq = kv.find('=');
        out.insert(out.end(), {"--mca", kv.substr(0, eq), kv.substr(eq + 1)});
    }
    return out;
}

}  // namespace gridcoll::backends
