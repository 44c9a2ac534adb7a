// gpucost: who requested what share of the GPUs, who used it, what it cost, what was wasted.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/usage_error.h"

int main(int argc, char** argv) {
  CLI::App app{"gpucost: exact GPU cost attribution for shared Kubernetes and Slurm clusters"};
  int exit_code = 0;
  gpucost::cli::AddGpucostCommands(app, exit_code, gpucost::cli::CommandToBuild(argc, argv));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return gpucost::cli::AnswerParseError(app, e, std::cout, std::cerr);
  }
  return exit_code;
}
