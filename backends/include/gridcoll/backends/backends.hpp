// Every backend by name, with its settings declared once: the one front door the command line
// (gridcoll simulate, predict, emulate), the Python package and the validation harness use to get
// a backend (gridcoll/algorithms/backend.hpp) and the Topology it runs on.
//
//   closed    the papers' closed forms                  (algorithms/, model::ClosedFormBackend)
//   event     the schedule event simulator              (sim/, sim::EventBackend)
//   smpi      gridcoll-bench-smpi under SimGrid's smpirun (sim/, sim::SmpiBackend)
//   openmpi   gridcoll-bench under mpirun on this machine (runtime/, launch::OpenMpiBackend)
//   emulated  gridcoll-bench across an emulated testbed (emulator/, emulate::EmulatedBackend)
//
// A setting has one key (the Python dict's and the spec file's, e.g. cross_traffic), one
// command-line spelling (--cross-traffic), a type, a default and one line of help; the
// command line declares its options from this table (cli/backend_options.hpp) and Python passes
// the same keys. Values travel as text; a key the backend does not have, a value not among its
// choices or not a number is an Error naming the backend, the key and the value.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridcoll/algorithms/backend.hpp"
#include "gridcoll/algorithms/batch_options.hpp"
#include "gridcoll/algorithms/topology.hpp"

namespace gridcoll::backends {

enum class SettingType : std::uint8_t {
    Flag,    // "true" / "false"
    Text,    // one value (a path, a name, a size with units)
    Number,  // one real number
    List,    // several values (the command line repeats the option)
    Pairs,   // several KEY=VALUE values (the command line: --option KEY VALUE, repeatable)
};

struct Setting {
    std::string key;        // snake_case: Python and spec files
    std::string flag;       // the command line's option in CLI11 syntax: "--shared-links", "-m,--model",
                            // "!--no-yield" (a flag that sets false)
    SettingType type = SettingType::Text;
    std::string fallback;   // the default, as text ("" = none)
    std::string help;
    std::vector<std::string> choices;  // Text: the values allowed (empty: any)

    Setting(std::string k, std::string f, SettingType t, std::string def, std::string h, std::vector<std::string> c = {})
        : key(std::move(k)), flag(std::move(f)), type(t), fallback(std::move(def)), help(std::move(h)), choices(std::move(c)) {}
};

struct BackendInfo {
    std::string name;
    std::string description;
    bool mpi = false;  // runs MPI code: 'native' is a method there, and 'all' includes it
    std::vector<Setting> settings;
    const Setting* find(std::string_view key) const;
};

// The backends this build has, in the order above.
const std::vector<BackendInfo>& backend_list();
// Throws Error listing this build's backends.
const BackendInfo& find_backend(std::string_view name);

// Setting values by key, as text (several for List and Pairs).
using SettingValues = std::map<std::string, std::vector<std::string>>;

// Where a backend runs.
struct Target {
    std::string platform;   // a description (.toml) or SimGrid XML; emulated: also a testbed's name
    std::string hostfile;   // SimGrid XML only
    int ranks = 0;          // 0: the platform's placement (or the hostfile's slots)
    std::string placement;  // descriptions: block or round-robin instead of their own
    std::string bin_dir;    // where gridcoll's programs are; empty: next to the running program
    std::function<void(const std::string&)> log;  // progress lines (testbed bring-up); may be empty
};

struct OpenedBackend {
    std::unique_ptr<Backend> backend;
    int ranks = 0;                              // the communicator's size on the target
    std::shared_ptr<const Topology> topology;   // null: none known (closed forms, bare XML)
    bool mpi = false;                           // BackendInfo::mpi
    bool verifies = true;                       // false: results cannot be checked (SMPI shared malloc)

    // The batch `o` describes on this target (BatchOptions::make), checked by the backend.
    Batch batch(const BatchOptions& o) const;
};

// Checks `values` against the backend's settings, then opens it on `target`. Errors name what is
// wrong; an emulated one-off testbed comes up here (and goes with the backend).
OpenedBackend open_backend(std::string_view name, const SettingValues& values, const Target& target);

}  // namespace gridcoll::backends
