// `gpucost version` (and `gpucost --version`): the version, git commit and build date.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/build_info.h"
#include "cli/commands.h"
#include "core/strings.h"

namespace gpucost::cli {

std::string VersionLine() {
  const BuildInfo b = GetBuildInfo();
  return StrCat("gpucost ", b.version, " (commit ", b.commit, ", built ", b.build_date, ")");
}

void AddVersionCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd =
      app.add_subcommand("version", "Print the version, git commit and build date of gpucost");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "As JSON: {\"version\", \"commit\", \"build_date\"}");
  cmd->callback([&exit_code, json] {
    if (*json) {
      const BuildInfo b = GetBuildInfo();
      const nlohmann::json j = {
          {"version", b.version}, {"commit", b.commit}, {"build_date", b.build_date}};
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%s\n", VersionLine().c_str());
    }
    exit_code = 0;
  });
}

}  // namespace gpucost::cli
