#include "cli/advise_pipeline.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "cli/format_flag.h"
#include "cli/price_flags.h"
#include "cli/ratio_flag.h"
#include "core/strings.h"
#include "pipeline/report_pipeline.h"
#include "pipeline/workload_profiles.h"
#include "pricing/price_book.h"

namespace gpucost::cli {
namespace {

double Hours(Duration d) { return std::chrono::duration<double, std::ratio<3600>>(d).count(); }

Result<double> HoursFlag(std::string_view flag, const std::string& text) {
  Result<Duration> d = ParseDuration(text);
  if (!d.ok() || d->count() < 0) {
    return Status::InvalidArgument(StrCat(flag, ": \"", text, "\" is not a duration (90m, 24h)"));
  }
  return Hours(*d);
}

Result<advise::AdviseSettings> Settings(const AdviseFlags& f) {
  advise::AdviseSettings s;
  GPUCOST_ASSIGN_OR_RETURN(s.idle_threshold, ParseRatio("--idle-threshold", f.idle_threshold));
  GPUCOST_ASSIGN_OR_RETURN(s.notebook_idle_hours,
                           HoursFlag("--notebook-idle-for", f.notebook_idle));
  GPUCOST_ASSIGN_OR_RETURN(s.idle_hours, HoursFlag("--idle-for", f.idle_for));
  GPUCOST_ASSIGN_OR_RETURN(s.target_utilization,
                           ParseRatio("--target-utilization", f.target_utilization));
  GPUCOST_ASSIGN_OR_RETURN(s.consolidate_below,
                           ParseRatio("--consolidate-below", f.consolidate_below));
  s.max_replicas = f.max_replicas;
  s.spot_interruptions_per_hour = f.spot_interruptions_per_hour;
  GPUCOST_ASSIGN_OR_RETURN(s.checkpoint_interval_hours,
                           HoursFlag("--checkpoint-interval", f.checkpoint_interval));
  if (!f.spot_discount.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(s.spot_discount, ParseRatio("--spot-discount", f.spot_discount));
    if (s.spot_discount < 0) {
      return Status::InvalidArgument("--spot-discount: must be in [0, 100%)");
    }
  }
  GPUCOST_ASSIGN_OR_RETURN(s.commitment_discount,
                           ParseRatio("--commitment-discount", f.commitment_discount));
  s.min_monthly_savings_usd = f.min_savings;
  GPUCOST_ASSIGN_OR_RETURN(s.min_window_hours, HoursFlag("--min-window", f.min_window));
  Status valid = s.Validate();
  if (!valid.ok()) return Status::InvalidArgument(StrCat("bad setting: ", valid.message()));
  return s;
}

}  // namespace

void AddAdviseFlags(CLI::App& cmd, AdviseFlags& f) {
  cmd.add_option("--window", f.window,
                 "START,END as RFC 3339 or unix seconds (default: the input's span)")
      ->check(WindowValue());
  cmd.add_option("--step", f.step, "Attribution step, e.g. 60s, 5m, 1h")->capture_default_str();
  cmd.add_option("--team", f.team, "Only these teams (comma-separated)");
  cmd.add_option("--idle-threshold", f.idle_threshold,
                 "A step whose utilization is under this is idle (5% or 0.05)")
      ->capture_default_str();
  cmd.add_option("--notebook-idle-for", f.notebook_idle,
                 "Notebooks idle this long in a row are worth culling")
      ->capture_default_str();
  cmd.add_option("--idle-for", f.idle_for,
                 "Other workloads idle this long in a row are worth scaling to zero")
      ->capture_default_str();
  cmd.add_option("--target-utilization", f.target_utilization,
                 "Right-sizing keeps the p99 use under this share of what is left")
      ->capture_default_str();
  cmd.add_option("--consolidate-below", f.consolidate_below,
                 "Whole-GPU workloads whose p95 utilization is under this may share GPUs")
      ->capture_default_str();
  cmd.add_option("--max-replicas", f.max_replicas, "Most replicas of a time-sliced or MPS GPU")
      ->capture_default_str();
  cmd.add_option("--spot-interruptions-per-hour", f.spot_interruptions_per_hour,
                 "Expected spot interruptions per hour")
      ->capture_default_str();
  cmd.add_option("--checkpoint-interval", f.checkpoint_interval,
                 "Checkpoint interval of batch work; an interruption loses half of it")
      ->capture_default_str();
  cmd.add_option("--spot-discount", f.spot_discount,
                 "Spot discount off on-demand where the price book has no spot price (e.g. 60%); "
                 "without it such savings are unknown");
  cmd.add_option("--commitment-discount", f.commitment_discount,
                 "Discount of a commitment on the steady on-demand base (whatif)")
      ->capture_default_str();
  cmd.add_option("--min-savings", f.min_savings, "Leave out recommendations saving less ($/month)")
      ->capture_default_str();
  cmd.add_option("--min-window", f.min_window,
                 "Recommend nothing from a window shorter than this: monthly savings from minutes "
                 "of evidence would not hold")
      ->capture_default_str();
  AddInputFlags(cmd, f.input);
  AddProgressFlags(cmd, f.input.progress);
  AddPriceFlags(cmd, f.price);
  AddTimelineFlags(cmd, f.input);
}

Result<AdviseRun> RunAdvise(const AdviseFlags& flags) {
  AdviseRun out;
  GPUCOST_ASSIGN_OR_RETURN(out.settings, Settings(flags));
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> window, OptionalWindow(flags.window));
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings settings, AccumulatedSettings(flags.step, "team"));
  GPUCOST_ASSIGN_OR_RETURN(std::shared_ptr<const PriceBook> book, MakePriceBook(flags.price));
  GPUCOST_ASSIGN_OR_RETURN(LoadedInput input, LoadInput(flags.input, window, settings.step));
  const PriceFn price = PriceBook::AsPriceFn(book);
  GPUCOST_ASSIGN_OR_RETURN(WorkloadProfiles profiled,
                           ProfileWorkloads(input, settings, price, std::move(book), out.settings,
                                            SplitList(flags.team)));
  PrintWarnings(input.timeline, profiled.summary, flags.input.max_warnings);
  out.window = profiled.window;
  out.step = profiled.step;
  out.profiles = std::move(profiled.profiles);
  return out;
}

}  // namespace gpucost::cli
