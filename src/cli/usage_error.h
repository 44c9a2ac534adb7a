// How a gpucost command line that cannot run is answered: CLI11's parse errors (each with its own
// exit code, 100 to 127) become one line that names the flag or word, a hint to run the command's
// --help, and exit status 2, the status every --help promises. Stateless and thread-safe.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::cli {

// The exit status of a command line that cannot run: an unknown flag or command, a bad or missing
// value, an extra argument; also of a failed run (commands.h).
inline constexpr int kUsageExitCode = 2;

// Answers the `e` that `app.parse` threw: help and version requests print to `out` and return 0;
// a command that needs a subcommand and got none (bare `gpucost`) prints its help to `out` and
// returns 2; any other error prints "gpucost report: unknown flag '--bb'; did you mean '--by'?"
// and "run 'gpucost report --help'" to `err` and returns 2. URIs in the text are shown as
// RedactUris shows them: an echoed argument may hold a password.
int AnswerParseError(const CLI::App& app, const CLI::ParseError& e, std::ostream& out,
                     std::ostream& err);

// The candidate nearest to `word` by edit distance (a swap of two neighbours counts once), or one
// that starts with it; "" when none is near enough to be what was meant.
std::string NearestName(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpucost::cli
