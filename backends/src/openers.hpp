// Each backend's table of settings and its opener; backend_list.cpp gathers them. Internal to
// backends/.
#pragma once

#include "gridcoll/backends/backends.hpp"
#include "setting_reader.hpp"

namespace gridcoll::backends {

BackendInfo closed_info();
BackendInfo event_info();
BackendInfo smpi_info();
BackendInfo openmpi_info();
BackendInfo emulated_info();

OpenedBackend open_closed(const SettingReader& s, const Target& t);
OpenedBackend open_event(const SettingReader& s, const Target& t);
OpenedBackend open_smpi(const SettingReader& s, const Target& t);
OpenedBackend open_openmpi(const SettingReader& s, const Target& t);
OpenedBackend open_emulated(const SettingReader& s, const Target& t);

// A program of this build: `override_path` when given, else `name` in target.bin_dir, else next
// to the running program (the path stays empty for the backend to find it there).
std::string program(const Target& t, const std::string& name, const std::string& override_path);
// Settings two backends share (openmpi, emulated).
Setting bench_setting();
Setting mca_setting();

}  // namespace gridcoll::backends
