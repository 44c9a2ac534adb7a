// Test helper: writes a fake-NVML script (see tests/agent/fake_nvml/fake_nvml.cc for its
// language) to a temporary file and points the fake library at it.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpucost::agent::testing {

inline constexpr const char* kFakeNvmlPath = FAKE_NVML_PATH;

// Sets GPUCOST_FAKE_NVML_SCRIPT for the next nvmlInit; returns the script's path.
inline std::string UseFakeNvmlScript(const std::string& name, const std::string& script) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gpucost-fake-nvml-" + name + ".txt");
  std::ofstream(path) << script;
  ::setenv("GPUCOST_FAKE_NVML_SCRIPT", path.c_str(), 1);
  return path.string();
}

}  // namespace gpucost::agent::testing
