// `gpucost report`: attributes timestamped kube-state-metrics and dcgm-exporter series (files,
// folders, gzip) over a window and prints who held, used and wasted what.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/every_flag.h"
#include "cli/format_flag.h"
#include "cli/input_flags.h"
#include "cli/price_flags.h"
#include "cli/segment_flags.h"
#include "core/log.h"
#include "core/strings.h"
#include "pipeline/report_pipeline.h"
#include "pipeline/segmented_report.h"
#include "pricing/price_fn.h"
#include "report/render.h"

namespace gpucost::cli {
namespace {

struct ReportFlags {
  InputFlags input;
  std::string window;
  std::string step = "60s";
  std::string by = "namespace";
  std::string every;        // --every: output buckets; "" totals the window
  bool accumulate = false;  // --accumulate: the default, kept for scripts
  std::string idle = "separate";
  std::string idle_scope = "cluster";
  PriceOptions price;
  std::string format = "table";
  bool step_given = false;  // --step on the command line (FOCUS charge periods)
  bool every_given = false;  // --every on the command line
  std::string focus_provider;  // empty: each node's cloud (its provider ID), else gpucost
  std::string focus_version = "1.3";
  bool focus_version_given = false;
  bool no_rollups = false;
  SegmentFlags segments;
};

Status RunInSegments(const ReportFlags& flags, Window window, const SegmentSizing& sizing,
                     const PriceFn& price, ReportSettings settings, OutputFormat format) {
  GPUCOST_ASSIGN_OR_RETURN(settings.staleness, ParseDuration(flags.input.staleness));
  settings.window = window;
  InventoryUnion units;
  SegmentedOptions options;
  options.sizing = sizing;
  options.progress = flags.input.progress.wanted();
  GPUCOST_ASSIGN_OR_RETURN(SegmentedRun run,
                           RunSegmentedReport(MakeSegmentLoader(flags.input, settings.step),
                                              price, settings, units, options));
  PrintWarnings(run.warnings, run.run.summary, flags.input.max_warnings);
  Render(run.run.report, format, std::cout);
  return Status::Ok();
}

Status Run(const ReportFlags& flags) {
  std::optional<Window> window;
  if (!flags.window.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(window, ParseWindow(flags.window));
  }
  ReportSettings settings;
  GPUCOST_ASSIGN_OR_RETURN(settings.step, ParseDuration(flags.step));
  if (settings.step.count() <= 0) return Status::InvalidArgument("--step must be positive");
  GPUCOST_RETURN_IF_ERROR(ApplyEvery(flags.every, flags.accumulate, settings));
  GPUCOST_ASSIGN_OR_RETURN(settings.by, ParseDimensions(flags.by));
  GPUCOST_ASSIGN_OR_RETURN(settings.idle.policy, ParseIdlePolicy(flags.idle));
  GPUCOST_ASSIGN_OR_RETURN(settings.idle.scope, ParseIdleScope(flags.idle_scope));
  const bool focus = flags.format == "focus";
  OutputFormat format = OutputFormat::kTable;
  if (!focus && flags.focus_version_given) {
    return Status::InvalidArgument("--focus-version applies to --format focus");
  }
  if (!focus) {
    auto parsed = ParseOutputFormat(flags.format);
    if (!parsed.ok()) {
      return Status::InvalidArgument(StrCat("unknown output format \"", flags.format,
                                            "\" (expected table, csv, json, focus)"));
    }
    format = *parsed;
  } else if (flags.accumulate || flags.every_given) {
    return Status::InvalidArgument(
        StrCat(flags.accumulate ? "--accumulate" : "--every",
               " does not apply to --format focus: its charge periods are UTC days, or the --step "
               "buckets when --step is given"));
  }
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(flags.price));
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<SegmentSizing> segments,
                           SegmentsFor(flags.segments, flags.input, window));
  if (!focus && segments) return RunInSegments(flags, *window, *segments, price, settings, format);
  InputFlags input_flags = flags.input;
  ApplyEveryToLedger(settings, flags.no_rollups, input_flags);
  GPUCOST_ASSIGN_OR_RETURN(LoadedInput input, LoadInput(input_flags, window, settings.step));
  const LoadedTimeline& timeline = input.timeline;
  ApplyInput(input, settings);
  if (focus && input.records) {
    return Status::InvalidArgument(
        "--format focus prices each charge period from the inputs: it does not read --ledger");
  }
  if (focus) {
    const std::optional<FocusVersion> version = ParseFocusVersion(flags.focus_version);
    if (!version) {
      return Status::InvalidArgument(
          StrCat("--focus-version ", flags.focus_version, ": expected 1.3 or 1.4"));
    }
    GPUCOST_ASSIGN_OR_RETURN(FocusRun frun,
                             RunFocusExport(timeline, price, settings, flags.step_given,
                                            flags.focus_provider, *version));
    PrintWarnings(timeline, frun.run.summary, flags.input.max_warnings);
    WriteFocusCsv(frun.table, std::cout);
    return Status::Ok();
  }
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, settings));
  PrintWarnings(timeline, run.summary, flags.input.max_warnings);
  Render(run.report, format, std::cout);
  return Status::Ok();
}

}  // namespace

void AddReportCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Attribute GPU cost from timestamped kube-state-metrics and dcgm-exporter series "
      "(Prometheus text with ms timestamps or OpenMetrics), per any dimensions");
  AddInputFlags(*cmd, f->input);
  AddProgressFlags(*cmd, f->input.progress);
  cmd->add_option("--window", f->window,
                  "START,END as RFC 3339 or unix seconds (default: the input's span)")
      ->check(WindowValue());
  cmd->add_option("--step", f->step,
                  "Attribution step, e.g. 60s, 5m (not with --ledger, whose records keep the "
                  "step they were written with; for a time series see --every)")
      ->capture_default_str();
  cmd->add_option("--by", f->by,
                  "Dimensions: cluster, node, namespace, team, workload, workload_kind, pod, "
                  "container, gpu_model, mig_profile, capacity_type, unit_kind, label:KEY")
      ->capture_default_str()
      ->check(DimensionList());
  AddEveryFlags(*cmd, f->every, f->accumulate);
  cmd->add_flag("--no-rollups", f->no_rollups,
                "With --ledger: read every record, not the hourly and daily roll-ups (the same "
                "report, slower)");
  cmd->add_option("--idle", f->idle, "Idle capacity: separate | proportional | even")
      ->transform(OneOf({"separate", "proportional", "even"}))
      ->capture_default_str();
  cmd->add_option("--idle-scope", f->idle_scope, "Share idle within: node | cluster")
      ->transform(OneOf({"node", "cluster"}))
      ->capture_default_str();
  AddSegmentFlags(*cmd, f->segments);
  AddPriceFlags(*cmd, f->price);
  AddFormatOption(*cmd, f->format, {"table", "csv", "json", "focus"},
                  "table | csv | json | focus (FinOps FOCUS Cost and Usage CSV, "
                  "docs/focus.md)");
  cmd->add_option("--focus-version", f->focus_version,
                  "With --format focus: the FOCUS version written, 1.3 or 1.4 (1.4 drops "
                  "ProviderName and PublisherName and adds CommitmentProgramEligibilityDetails and "
                  "InvoiceDetailId)")
      ->transform(OneOf({"1.3", "1.4"}))
      ->capture_default_str();
  cmd->add_option("--focus-provider", f->focus_provider,
                  "With --format focus: ServiceProviderName, InvoiceIssuerName and the like on "
                  "every row (default: each node's cloud from its provider ID, else gpucost)");
  AddTimelineFlags(*cmd, f->input);
  cmd->footer(
      "Nodes are priced by the price book (`gpucost prices` explains each node): overrides, rate "
      "card, built-in catalog by instance type, default rate. A node nothing prices has its money "
      "reported as unknown (null), never as zero; --format focus then fails, naming the nodes "
      "without a price. Exit status: 0 on success, 2 on bad flags or input.");
  SetStatusCallback(*cmd, exit_code, [f, cmd] {
    f->step_given = cmd->count("--step") > 0;
    f->every_given = cmd->count("--every") > 0;
    f->focus_version_given = cmd->count("--focus-version") > 0;
    return Run(*f);
  });
}

}  // namespace gpucost::cli
