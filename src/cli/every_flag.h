// `--every`: the output buckets of a report (a time series), apart from the attribution step
// (`--step`). No `--every` totals the window: one row per group. Stateless.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/input_flags.h"
#include "core/result.h"
#include "core/status.h"
#include "pipeline/report_pipeline.h"

namespace gpucost::cli {

// Registers --every (into `every`) and --accumulate (into `accumulate`, the default it names).
void AddEveryFlags(CLI::App& cmd, std::string& every, bool& accumulate);

// Sets settings.accumulate, settings.every and settings.every_month from --every ("" totals the
// window; "month" is UTC calendar months; else a duration such as 1h, 1d, 1w that must be a
// whole multiple of settings.step). InvalidArgument naming the flag for a bad value, or for
// --every together with --accumulate.
Status ApplyEvery(const std::string& every, bool accumulate, ReportSettings& settings);

// What --every asks of a --ledger read: roll-ups where they fit inside one bucket (none by
// calendar months, whose buckets no roll-up period is sure to nest in).
void ApplyEveryToLedger(const ReportSettings& settings, bool no_rollups, InputFlags& input);

// --step sets the attribution step, which records read from --ledger already have: a --step
// given with --ledger on `cmd`'s command line is refused (InvalidArgument) rather than silently
// ignored. Every command run through SetStatusCallback checks it.
Status RefuseStepWithLedger(const CLI::App& cmd);

}  // namespace gpucost::cli
