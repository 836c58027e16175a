// Typed reading of one backend's setting values (backends.hpp), each checked against the
// backend's table: an unknown key names the backends that have it; a value off its choices, not
// a number or not a flag names the key and the value. Internal to backends/.
#pragma once

#include <string>
#include <vector>

#include "gridcoll/backends/backends.hpp"

namespace gridcoll::backends {

class SettingReader {
public:
    // Throws Error for the first key `backend` does not have or value it does not take.
    SettingReader(const BackendInfo& backend, const SettingValues& values);

    bool flag(const std::string& key) const;
    std::string text(const std::string& key) const;
    double number(const std::string& key) const;
    std::vector<std::string> list(const std::string& key) const;
    // Pairs as "--mca", KEY, VALUE triples, flattened (mpirun's spelling).
    std::vector<std::string> mca(const std::string& key) const;
    // True when the value was given (not the default).
    bool given(const std::string& key) const;

private:
    const Setting& setting(const std::string& key) const;
    const BackendInfo& backend_;
    const SettingValues& values_;
};

}  // namespace gridcoll::backends
