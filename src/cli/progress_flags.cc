#include "cli/progress_flags.h"

namespace gpucost::cli {

void AddProgressFlags(CLI::App& cmd, ProgressFlags& flags) {
  CLI::Option* on = cmd.add_flag(
      "--progress", flags.on,
      "Draw a progress line on stderr (bytes or time covered, rate, time left) even when it "
      "is not a terminal; default: only on a terminal");
  CLI::Option* off = cmd.add_flag("--no-progress", flags.off, "Never draw a progress line");
  on->excludes(off);
  flags.registered = true;
}

}  // namespace gpucost::cli
