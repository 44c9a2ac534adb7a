// What this gpucost binary was built from: its version (the project's), the git commit of the
// source tree and the build date (UTC; SOURCE_DATE_EPOCH's when set). The definition is
// generated at build time (cmake/build_info.cmake). Constant data: thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace gpucost::cli {

struct BuildInfo {
  std::string_view version;     // "0.1.0"
  std::string_view commit;      // "58d8d00", or "unknown" when built outside a git checkout
  std::string_view build_date;  // "2026-11-27"
};

BuildInfo GetBuildInfo();

// "gpucost 0.1.0 (commit 58d8d00, built 2026-11-27)": what `gpucost --version` prints.
std::string VersionLine();

}  // namespace gpucost::cli
