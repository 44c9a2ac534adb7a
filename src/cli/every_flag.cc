#include "cli/every_flag.h"

#include "core/strings.h"
#include "core/time.h"

namespace gpucost::cli {

void AddEveryFlags(CLI::App& cmd, std::string& every, bool& accumulate) {
  cmd.add_option("--every", every,
                 "A time series: one row per group per bucket of 1h, 1d, 1w (any whole "
                 "multiple of --step, counted from the window's start) or month (UTC calendar "
                 "months); default: one row per group for the whole window");
  cmd.add_flag("--accumulate", accumulate,
               "One row per group for the whole window (the default; kept for scripts)");
}

Status ApplyEvery(const std::string& every, bool accumulate, ReportSettings& settings) {
  settings.every = Duration(0);
  settings.every_month = false;
  settings.accumulate = every.empty();
  if (every.empty()) return Status::Ok();
  if (accumulate) {
    return Status::InvalidArgument(
        "--every asks for a time series and --accumulate for one row per group: give one");
  }
  if (every == "month") {
    settings.every_month = true;
    return Status::Ok();
  }
  Result<Duration> d = ParseDuration(every);
  if (!d.ok() || d->count() <= 0) {
    return Status::InvalidArgument(
        StrCat("--every \"", every, "\": expected a duration such as 1h, 1d, 1w, or month"));
  }
  if (d->count() % settings.step.count() != 0) {
    return Status::InvalidArgument(StrCat("--every ", every, " is not a whole multiple of --step ",
                                          FormatDuration(settings.step)));
  }
  settings.every = *d;
  return Status::Ok();
}

void ApplyEveryToLedger(const ReportSettings& settings, bool no_rollups, InputFlags& input) {
  input.ledger_rollups = !no_rollups && !settings.every_month;
  input.ledger_bucket = settings.accumulate ? Duration(0) : settings.every;
}

Status RefuseStepWithLedger(const CLI::App& cmd) {
  const CLI::Option* step = cmd.get_option_no_throw("--step");
  const CLI::Option* ledger = cmd.get_option_no_throw("--ledger");
  if (step == nullptr || ledger == nullptr || step->count() == 0 || ledger->count() == 0) {
    return Status::Ok();
  }
  return Status::InvalidArgument(
      "--step sets the attribution step, and the records of --ledger were attributed at the "
      "step they were written with: drop --step (report's time series: --every)");
}

}  // namespace gpucost::cli
