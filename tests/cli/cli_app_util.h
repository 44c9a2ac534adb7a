// The gpucost command tree in the test process, for the tests of its command-line conventions
// (parse errors, completion) that need no command to run.
#pragma once

#include <CLI/CLI.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/usage_error.h"

namespace gpucost::testing_util {

struct ParseAnswer {
  int exit_code = -1;  // -1: the command line parsed (and its command ran)
  std::string out;
  std::string err;
};

// Parses `args` (after "gpucost") as main.cc does, against the tree main.cc builds for them, and
// answers a parse error as it does.
inline ParseAnswer ParseGpucost(const std::vector<std::string>& args) {
  CLI::App app{"gpucost"};
  int exit_code = 0;
  std::vector<const char*> argv = {"gpucost"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  cli::AddGpucostCommands(app, exit_code,
                          cli::CommandToBuild(static_cast<int>(argv.size()), argv.data()));
  ParseAnswer answer;
  std::ostringstream out;
  std::ostringstream err;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    answer.exit_code = cli::AnswerParseError(app, e, out, err);
  }
  answer.out = out.str();
  answer.err = err.str();
  return answer;
}

}  // namespace gpucost::testing_util
