// The emulated backend's settings that `gridcoll emulate up|plan|run|check` share with it, read
// through the backend's one table (backends.hpp): how a testbed is built, how its fidelity is
// checked, how mpirun runs across it.
#pragma once

#include "gridcoll/backends/backends.hpp"
#include "gridcoll/emulator/testbed.hpp"
#include "gridcoll/emulator/testbed_check.hpp"
#include "gridcoll/emulator/testbed_mpi.hpp"

namespace gridcoll::backends {

// Keys of the groups, for front ends that declare only some of them.
extern const std::vector<std::string> kTestbedKeys;  // the set-up: shaper ... windows, dilation, machines
extern const std::vector<std::string> kCheckKeys;    // pings, loss_packets, transfer
extern const std::vector<std::string> kMpirunKeys;   // yield_when_idle, mca

// Each throws Error naming the key and value at fault.
emulate::TestbedOptions testbed_options(const SettingValues& values, const std::string& name = "");
emulate::CheckOptions check_options(const SettingValues& values);
emulate::MpiOptions mpi_options(const SettingValues& values, int ranks);

// Brings `platform` (.toml) up as a one-off testbed, or opens the testbed of that name; a one-off
// one (named `name`, default the platform's) is checked first unless `check` is false (its table
// goes to `log`; a failure is an Error).
std::unique_ptr<emulate::Testbed> testbed_for(const std::string& platform, const SettingValues& values, bool check,
                                              const std::function<void(const std::string&)>& log, const std::string& name = "");
// For a report: the time dilation a testbed of `platform` (a description, or the name of a testbed
// that is up) runs under with these settings, and where its hosts run ("dilation x4 (setting auto,
// 8 cores on 2); 8 hosts, all on this machine (name)").
std::string testbed_layout(const std::string& platform, const SettingValues& values);
// True for a description (a one-off testbed), false for a testbed's name.
bool is_description(const std::string& platform);

}  // namespace gridcoll::backends
