// `gpucost chargeback`: per-team chargeback statements for a month or a window (charge lines by
// GPU model, capacity type and rate; idle hours, efficiency and spot ratio against targets; top
// consumers) from the same inputs and prices as `gpucost report` (docs/chargeback.md).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chargeback/charge_sink.h"
#include "chargeback/period.h"
#include "chargeback/render.h"
#include "chargeback/statement_builder.h"
#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/input_flags.h"
#include "cli/price_flags.h"
#include "cli/ratio_flag.h"
#include "cli/segment_flags.h"
#include "core/log.h"
#include "core/strings.h"
#include "pipeline/report_pipeline.h"
#include "pricing/price_fn.h"

namespace gpucost::cli {
namespace {

using chargeback::ChargebackSettings;
using chargeback::Period;

struct ChargebackFlags {
  InputFlags input;
  std::string team;
  std::string by;
  std::string month;
  std::string window;
  std::string step = "60s";
  PriceOptions price;
  std::string format = "text";
  std::string idle_threshold = "5%";
  std::string efficiency_target = "80%";
  std::string spot_ratio_target = "70%";
  int top = 5;
  std::string idle = "separate";
  std::string idle_scope = "cluster";
  SegmentFlags segments;
};

Result<ChargebackSettings> Settings(const ChargebackFlags& flags) {
  ChargebackSettings s;
  GPUCOST_ASSIGN_OR_RETURN(s.idle_threshold, ParseRatio("--idle-threshold", flags.idle_threshold));
  GPUCOST_ASSIGN_OR_RETURN(s.efficiency_target,
                           ParseRatio("--efficiency-target", flags.efficiency_target));
  GPUCOST_ASSIGN_OR_RETURN(s.spot_ratio_target,
                           ParseRatio("--spot-ratio-target", flags.spot_ratio_target));
  s.top = flags.top;
  GPUCOST_RETURN_IF_ERROR(s.Validate());
  return s;
}

Result<std::vector<std::string>> Teams(const ChargebackFlags& flags) {
  if (!flags.by.empty() && flags.by != "team") {
    return Status::InvalidArgument(
        StrCat("--by \"", flags.by, "\": statements are per team (--by team)"));
  }
  if (flags.team.empty() == flags.by.empty()) {
    return Status::InvalidArgument("give --team NAME[,NAME...] or --by team (every team)");
  }
  std::vector<std::string> teams = SplitList(flags.team);
  if (flags.by.empty() && teams.empty()) return Status::InvalidArgument("--team: no team named");
  return teams;
}

// The cluster's cost over the statements' period and where it went, from the report of the same
// engine run (its idle policy applied), and each statement's share of the idle: the statements
// and the summary then say what `gpucost report --by team` says.
void Summarize(const Report& report, const IdleOptions& idle, chargeback::StatementSet& set) {
  std::map<std::string, size_t> stated;
  for (size_t i = 0; i < set.statements.size(); ++i) stated[set.statements[i].team] = i;
  chargeback::ClusterSummary c;
  c.idle_policy = std::string(IdlePolicyName(idle.policy));
  c.idle_scope = std::string(IdleScopeName(idle.scope));
  c.price_sources = report.price_sources;
  c.unit_kind_hours = report.unit_kind_hours;
  c.unpriced_gpu_hours = report.totals.unpriced_gpu_hours;
  c.cost.usd = std::isnan(report.totals.cost_usd) ? 0 : report.totals.cost_usd;
  c.cost.some_unpriced = report.totals.unpriced_gpu_hours > 0;
  c.cost.any_priced = report.totals.gpu_hours > report.totals.unpriced_gpu_hours;
  double held_hours = 0;
  for (const ReportRow& row : report.rows) {
    const double usd = row.is_idle ? row.idle_usd : row.allocated_usd;
    chargeback::ClusterPart* part = &c.idle;
    if (!row.is_idle) {
      held_hours += row.gpu_hours;
      const auto it = stated.find(row.values.empty() ? std::string() : row.values[0]);
      part = it == stated.end() ? &c.other_teams : &c.stated_teams;
      if (it != stated.end() && idle.policy != IdlePolicy::kSeparate && !std::isnan(row.idle_usd)) {
        set.statements[it->second].shared_idle_usd = row.idle_usd;
      }
    }
    if (!std::isnan(usd)) {
      part->usd += usd;
      part->any_priced = true;
    }
    if (std::isnan(usd) || row.unpriced_gpu_hours > 0) part->some_unpriced = true;
  }
  // Capacity: the hours of every price source (held and unheld, whatever the idle policy), or
  // the report's hours with idle kept apart.
  double capacity = 0;
  for (const auto& [source, hours] : report.price_sources) capacity += hours;
  if (!report.price_sources_known || idle.policy == IdlePolicy::kSeparate) {
    capacity = report.totals.gpu_hours;
  }
  c.idle_gpu_hours = std::max(0.0, capacity - held_hours);
  set.cluster = std::move(c);
}

// Statements of a period the input has no data in would all be $0.00: an error, as --team's is.
Status SomeDataIn(const chargeback::StatementSet& set, std::optional<Window> span) {
  if (!set.covered || !set.covered->empty()) return Status::Ok();
  return Status::NotFound(StrCat("the input has no data in the period ",
                                 FormatRfc3339(set.period.window.start), " to ",
                                 FormatRfc3339(set.period.window.end),
                                 span ? StrCat(" (it covers ", FormatRfc3339(span->start), " to ",
                                               FormatRfc3339(span->end), ")")
                                      : std::string(),
                                 ": nothing to state"));
}

Status Run(const ChargebackFlags& flags) {
  GPUCOST_ASSIGN_OR_RETURN(ChargebackSettings cfg, Settings(flags));
  GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> teams, Teams(flags));
  GPUCOST_ASSIGN_OR_RETURN(chargeback::StatementFormat format,
                           chargeback::ParseStatementFormat(flags.format));
  if (!flags.month.empty() && !flags.window.empty()) {
    return Status::InvalidArgument("give either --month or --window, not both");
  }
  std::optional<Period> month;
  std::optional<Window> window;
  if (!flags.month.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(month, chargeback::ParseMonth(flags.month));
    window = month->window;
  } else if (!flags.window.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(window, ParseWindow(flags.window));
  }
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings settings, AccumulatedSettings(flags.step, "team"));
  GPUCOST_ASSIGN_OR_RETURN(settings.idle.policy, ParseIdlePolicy(flags.idle));
  GPUCOST_ASSIGN_OR_RETURN(settings.idle.scope, ParseIdleScope(flags.idle_scope));
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(flags.price));
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<SegmentSizing> segments,
                           SegmentsFor(flags.segments, flags.input, window));
  if (segments) {
    // From a store, a segment at a time: the statements gather every segment's records.
    GPUCOST_ASSIGN_OR_RETURN(settings.staleness, ParseDuration(flags.input.staleness));
    settings.window = *window;
    const Period period = month ? *month : chargeback::WindowPeriod(*window);
    chargeback::StatementBuilder builder(period, cfg);
    InventoryUnion units;
    chargeback::ChargeSink sink(units.inventory(), settings.window, settings.step, builder);
    SegmentedOptions options;
    options.sizing = *segments;
    options.also = &sink;
    options.progress = flags.input.progress.wanted();
    GPUCOST_ASSIGN_OR_RETURN(SegmentedRun run,
                             RunSegmentedReport(MakeSegmentLoader(flags.input, settings.step),
                                                price, settings, units, options));
    PrintWarnings(run.warnings, run.run.summary, flags.input.max_warnings);
    GPUCOST_ASSIGN_OR_RETURN(chargeback::StatementSet set, builder.Finish(teams));
    set.covered = run.run.report.covered;
    GPUCOST_RETURN_IF_ERROR(SomeDataIn(set, std::nullopt));
    Summarize(run.run.report, settings.idle, set);
    chargeback::RenderStatements(set, format, std::cout);
    return Status::Ok();
  }

  GPUCOST_ASSIGN_OR_RETURN(LoadedInput input, LoadInput(flags.input, window, settings.step));
  const LoadedTimeline& timeline = input.timeline;
  ApplyInput(input, settings);
  const Period period = month ? *month : chargeback::WindowPeriod(timeline.window);
  chargeback::StatementBuilder builder(period, cfg);
  chargeback::ChargeSink sink(timeline.inventory, settings.window, settings.step, builder);
  // The report beside the statements checks conservation on the same engine run.
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, settings, &sink));
  PrintWarnings(timeline, run.summary, flags.input.max_warnings);
  GPUCOST_ASSIGN_OR_RETURN(chargeback::StatementSet set, builder.Finish(teams));
  if (timeline.samples > 0) set.covered = Intersect(period.window, timeline.span);
  GPUCOST_RETURN_IF_ERROR(SomeDataIn(set, timeline.span));
  Summarize(run.report, settings.idle, set);
  chargeback::RenderStatements(set, format, std::cout);
  return Status::Ok();
}

}  // namespace

void AddChargebackCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<ChargebackFlags>();
  CLI::App* cmd = app.add_subcommand(
      "chargeback",
      "Per-team chargeback statements for a month or window: GPU-hours and money by GPU model, "
      "capacity type and rate, idle hours, efficiency, spot ratio, top consumers");
  cmd->add_option("--team", f->team, "The team (or teams, comma-separated) to state");
  cmd->add_option("--by", f->by, "team: a statement for every team with GPU usage");
  cmd->add_option("--month", f->month, "Calendar month in UTC, YYYY-MM (e.g. 2026-10)");
  cmd->add_option("--window", f->window,
                  "START,END as RFC 3339 or unix seconds instead of --month (default: the "
                  "input's span)")
      ->check(WindowValue());
  cmd->add_option("--step", f->step, "Attribution step, e.g. 60s, 5m, 1h")->capture_default_str();
  AddFormatOption(*cmd, f->format, {"text", "markdown", "csv", "json", "html"});
  cmd->add_option("--idle-threshold", f->idle_threshold,
                  "A held GPU-hour whose utilization is under this counts as idle (80% or 0.8)")
      ->capture_default_str();
  cmd->add_option("--efficiency-target", f->efficiency_target,
                  "Target for effective / allocated cost")
      ->capture_default_str();
  cmd->add_option("--spot-ratio-target", f->spot_ratio_target,
                  "Target for spot GPU-hours / all GPU-hours")
      ->capture_default_str();
  cmd->add_option("--top", f->top, "Top consumers (workloads) listed")->capture_default_str();
  cmd->add_option("--idle", f->idle,
                  "Idle capacity: separate (in the cluster summary) | proportional | even "
                  "(shared to the teams' statements, as gpucost report --idle)")
      ->transform(OneOf({"separate", "proportional", "even"}))
      ->capture_default_str();
  cmd->add_option("--idle-scope", f->idle_scope, "Share idle within: node | cluster")
      ->transform(OneOf({"node", "cluster"}))
      ->capture_default_str();
  AddInputFlags(*cmd, f->input);
  AddProgressFlags(*cmd, f->input.progress);
  AddSegmentFlags(*cmd, f->segments);
  AddPriceFlags(*cmd, f->price);
  AddTimelineFlags(*cmd, f->input);
  cmd->footer(
      "Money is rounded to cents so that the lines add up exactly to the total; hours on "
      "capacity without a price are shown as unknown, never as $0. Exit status: 0 on success, "
      "2 on bad flags, bad input or an unknown team.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
