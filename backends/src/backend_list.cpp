#include <algorithm>

#include "gridcoll/algorithms/units.hpp"
#include "openers.hpp"

namespace gridcoll::backends {

namespace {

using Opener = OpenedBackend (*)(const SettingReader&, const Target&);

struct Entry {
    BackendInfo info;
    Opener open;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> all = [] {
        std::vector<Entry> e = {{closed_info(), open_closed}, {event_info(), open_event}};
#ifdef GRIDCOLL_HAVE_SMPI
        e.push_back({smpi_info(), open_smpi});
#endif
#ifdef GRIDCOLL_HAVE_MPI
        e.push_back({openmpi_info(), open_openmpi});
#endif
#ifdef GRIDCOLL_HAVE_EMULATOR
        e.push_back({emulated_info(), open_emulated});
#endif
        return e;
    }();
    return all;
}

const Entry& entry(std::string_view name) {
    for (const Entry& e : entries())
        if (e.info.name == name) return e;
    std::string valid;
    for (const Entry& e : entries()) valid += (valid.empty() ? "" : ", ") + e.info.name;
    throw Error("unknown backend '" + std::string(name) + "' (this build has: " + valid + ")");
}

}  // namespace

const Setting* BackendInfo::find(std::string_view key) const {
    for (const Setting& s : settings)
        if (s.key == key) return &s;
    return nullptr;
}

const std::vector<BackendInfo>& backend_list() {
    static const std::vector<BackendInfo> all = [] {
        std::vector<BackendInfo> v;
        for (const Entry& e : entries()) v.push_back(e.info);
        return v;
    }();
    return all;
}

const BackendInfo& find_backend(std::string_view name) {
    for (const BackendInfo& b : backend_list())
        if (b.name == name) return b;
    return entry(name).info;  // throws, listing the names
}

Batch OpenedBackend::batch(const BatchOptions& o) const {
    Batch b = o.make(ranks, topology, mpi);
    b.verify = b.verify && verifies;
    backend->check(b);  // one clear message before anything starts
    return b;
}

OpenedBackend open_backend(std::string_view name, const SettingValues& values, const Target& target) {
    const Entry& e = entry(name);
    const SettingReader reader(e.info, values);
    return e.open(reader, target);
}

Setting bench_setting() { return {"bench", "--bench", SettingType::Text, "", "path of gridcoll-bench (default: next to gridcoll)"}; }

Setting mca_setting() {
    return {"mca", "--mca", SettingType::Pairs, "",
            "another Open MPI parameter for mpirun, KEY=VALUE (command line: --mca KEY VALUE, repeatable)"};
}

std::string program(const Target& t, const std::string& name, const std::string& override_path) {
    if (!override_path.empty() || t.bin_dir.empty()) return override_path;
    return t.bin_dir + "/" + name;
}

}  // namespace gridcoll::backends
