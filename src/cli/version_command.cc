#include <cstdio>

#include "cli/commands.h"

#ifndef GPUCOST_VERSION
#define GPUCOST_VERSION "0.1.0"
#endif

namespace gpucost::cli {

void AddVersionCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("version", "Print the gpucost version");
  cmd->callback([&exit_code] {
    std::printf("gpucost %s\n", GPUCOST_VERSION);
    exit_code = 0;
  });
}

}  // namespace gpucost::cli
