// Running a child process without a shell (posix_spawn) and collecting its stdout and stderr:
// argv[0] looked up in PATH when it has no '/', this process's environment with overrides, stdin
// from /dev/null unless asked otherwise, and an optional time limit. A failure to start, a
// non-zero exit, a signal or the time limit is an error carrying the child's stderr.
// Stateless; thread-safe (the child's environment is built per call).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace gpucost {

struct CommandOutput {
  std::string out;
  std::string err;
};

struct CommandOptions {
  // Zero: no limit. When it runs out the child and everything it started (its own process
  // group) is killed with SIGKILL.
  Duration timeout{0};
  // False: stdin is /dev/null, so a child that would prompt reads end-of-file instead of
  // waiting. True: the child shares this process's stdin (for interactive helpers).
  bool inherit_stdin = false;
};

// Runs argv[0] with `env_overrides` applied to this process's environment: "NAME=value" sets
// NAME (replacing any value it had), a bare "NAME" removes it. Errors name the command and carry
// the tail of its stderr; NotFound when the program does not exist, Unavailable otherwise.
Result<CommandOutput> RunCommand(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env_overrides,
                                 const CommandOptions& options = {});

}  // namespace gpucost
