// Running `sacct` for a window: builds its argument vector (all users, all states, the fields
// the parser reads, times in the cluster's zone) and runs it without a shell (core's RunCommand),
// collecting its output. A failure to start, a non-zero exit or a signal is an error carrying
// sacct's stderr. Stateless functions; thread-compatible (the child's environment is built per
// call).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "core/subprocess.h"
#include "core/time.h"

namespace gpucost::slurm {

// The --format list gpucost asks sacct for, in order (also the parser's header-less field list).
std::vector<std::string> SacctFields();

struct SacctRunOptions {
  std::string binary = "sacct";       // a path, or a name looked up in PATH
  Window window;                      // --starttime/--endtime
  std::string time_zone = "local";    // LocalTimeZone setting; sacct runs with TZ set to it
  std::vector<std::string> clusters;  // --clusters; empty: sacct's default (the local cluster)
};

// argv[0] is the binary. Errors: an unknown time zone, an empty window.
Result<std::vector<std::string>> SacctArgv(const SacctRunOptions& options);

// The TZ value that makes a process read and print times in `time_zone` ("" for local).
Result<std::string> TzForSetting(const std::string& time_zone);

// Runs sacct as SacctArgv describes (SLURM_TIME_FORMAT=standard, TZ from the zone setting) and
// returns its stdout: --parsable2 lines without a header, fields as SacctFields().
Result<std::string> RunSacct(const SacctRunOptions& options);

}  // namespace gpucost::slurm
