// gpucost-agent: the node agent alone (`gpucost agent`'s options), a small binary for the
// DaemonSet that maps only the libraries the agent uses.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/usage_error.h"

int main(int argc, char** argv) {
  CLI::App app{"gpucost-agent: per-pod GPU activity and device assignments on /metrics"};
  app.name("gpucost-agent");
  int exit_code = 0;
  gpucost::cli::AddAgentOptions(&app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return gpucost::cli::AnswerParseError(app, e, std::cout, std::cerr);
  }
  return exit_code;
}
