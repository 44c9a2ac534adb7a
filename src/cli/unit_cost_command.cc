// `gpucost unit-cost`: cost per unit of work. Joins the engine's cost per holder with a work
// counter (requests, tokens, training steps) read from the same input as the costs, per
// workload, namespace, team or pod: work done, allocated and effective cost, and dollars and
// GPU-hours per N units (docs/unit-cost.md).
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/input_flags.h"
#include "cli/price_flags.h"
#include "core/log.h"
#include "core/strings.h"
#include "pipeline/report_pipeline.h"
#include "pricing/price_fn.h"
#include "workcost/render.h"
#include "workcost/unit_cost.h"
#include "workcost/work_series.h"

namespace gpucost::cli {
namespace {

struct UnitCostFlags {
  InputFlags input;
  std::string work_metric;
  std::string per = "1";
  std::string unit = "units";
  std::string by = "workload";
  std::string workload_kind;
  std::string pod_label;
  std::string namespace_label;
  std::string window;
  std::string step = "60s";
  std::string format = "text";
  PriceOptions price;
};

// The work counter's samples, read in the same pass as the timeline.
class WorkTap final : public SeriesTap {
 public:
  explicit WorkTap(workcost::WorkSeriesOptions options) : collector_(std::move(options)) {}
  std::vector<std::string> Metrics() const override { return {collector_.options().metric}; }
  void BeginSource(const std::string& name) override { collector_.BeginSource(name); }
  void OnSample(const SampleView& sample) override { collector_.OnSample(sample); }
  workcost::WorkSeriesCollector& collector() { return collector_; }

 private:
  workcost::WorkSeriesCollector collector_;
};

Result<double> ParsePer(const std::string& text) {
  const std::string t(Trim(text));
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v <= 0) {
    return Status::InvalidArgument(
        StrCat("--per: \"", text, "\" is not a positive number (1000, 1e6)"));
  }
  return v;
}

Status Run(const UnitCostFlags& flags) {
  if (flags.work_metric.empty()) return Status::InvalidArgument("--work-metric is required");
  if (flags.input.inputs.empty() && flags.input.prometheus.empty()) {
    return Status::InvalidArgument(
        "give --input or --prometheus: the work counter is read from the same source as the "
        "costs (with --ledger, the costs come from the ledger and the counter from that source)");
  }
  workcost::UnitCostSettings settings;
  GPUCOST_ASSIGN_OR_RETURN(settings.per, ParsePer(flags.per));
  GPUCOST_ASSIGN_OR_RETURN(settings.by, workcost::ParseGroupBy(flags.by));
  settings.unit = flags.unit;
  settings.metric = flags.work_metric;
  settings.workload_kind = flags.workload_kind;
  GPUCOST_ASSIGN_OR_RETURN(workcost::UnitCostFormat format,
                           workcost::ParseUnitCostFormat(flags.format));
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> window, OptionalWindow(flags.window));
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings report, AccumulatedSettings(flags.step, "namespace"));
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(flags.price));

  workcost::WorkSeriesOptions wopts;
  wopts.metric = flags.work_metric;
  wopts.pod_label = flags.pod_label;
  wopts.namespace_label = flags.namespace_label;
  wopts.default_cluster = flags.input.cluster;
  WorkTap tap(wopts);
  LoadedInput input;
  if (flags.input.ledger.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(input, LoadInput(flags.input, window, report.step, &tap));
  } else {
    // The costs from the ledger; the work counter from the other source, over the same window.
    InputFlags costs;
    costs.ledger = flags.input.ledger;
    GPUCOST_ASSIGN_OR_RETURN(input, LoadInput(costs, window, report.step));
    InputFlags work = flags.input;
    work.ledger.clear();
    GPUCOST_RETURN_IF_ERROR(LoadInput(work, input.timeline.window, report.step, &tap).status());
  }
  const LoadedTimeline& timeline = input.timeline;
  if (tap.collector().samples() == 0) {
    return Status::InvalidArgument(
        StrCat("the input holds no timestamped samples of ", flags.work_metric,
               " (the work counter; give the name as stored, e.g. with its _total suffix)"));
  }
  ApplyInput(input, report);
  workcost::HolderCostSink sink(timeline.inventory.holders.size());
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, report, &sink));
  PrintWarnings(timeline, run.summary, flags.input.max_warnings);
  const std::vector<workcost::WorkSeries> series = tap.collector().Finish();
  for (const std::string& w : tap.collector().warnings()) LogWarn(w);

  settings.window = timeline.window;
  settings.lookback = input.staleness;
  GPUCOST_ASSIGN_OR_RETURN(
      workcost::UnitCostTable table,
      workcost::BuildUnitCost(timeline.inventory, sink.costs(), series, settings));
  for (const std::string& w : table.warnings) LogWarn(w);
  workcost::RenderUnitCost(table, format, std::cout);
  return Status::Ok();
}

}  // namespace

void AddUnitCostCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<UnitCostFlags>();
  CLI::App* cmd = app.add_subcommand(
      "unit-cost",
      "Cost per unit of work: GPU cost joined with a work counter (requests, tokens, training "
      "steps) from the same input, per workload, namespace, team or pod");
  cmd->add_option("--work-metric", f->work_metric,
                  "The work counter as stored, e.g. vllm:request_success_total, "
                  "vllm:generation_tokens_total")
      ->required();
  cmd->add_option("--per", f->per, "Figures per this many units of work (1000, 1e6)")
      ->capture_default_str();
  cmd->add_option("--unit", f->unit, "What one unit of work is, for headers (requests, tokens)")
      ->capture_default_str();
  cmd->add_option("--by", f->by,
                  "cluster | team | namespace | workload | pod, comma-separated (workload and "
                  "pod include their namespace)")
      ->capture_default_str();
  cmd->add_option("--workload-kind", f->workload_kind,
                  "Only workloads of this kind, e.g. Job (one row per experiment with --by "
                  "workload)");
  cmd->add_option("--work-pod-label", f->pod_label,
                  "The counter's label naming its pod (default: exported_pod when present, "
                  "else pod)");
  cmd->add_option("--work-namespace-label", f->namespace_label,
                  "The counter's label naming its namespace (default: exported_namespace when "
                  "present, else namespace)");
  cmd->add_option("--window", f->window,
                  "START,END as RFC 3339 or unix seconds (default: the input's span; required "
                  "with --prometheus)")
      ->check(WindowValue());
  cmd->add_option("--step", f->step, "Attribution step, e.g. 60s, 5m")->capture_default_str();
  AddFormatOption(*cmd, f->format, {"text", "csv", "json"});
  AddInputFlags(*cmd, f->input);
  AddProgressFlags(*cmd, f->input.progress);
  AddPriceFlags(*cmd, f->price);
  AddTimelineFlags(*cmd, f->input);
  cmd->footer(
      "Work is the counter's exact increase over the window from its raw samples (resets "
      "handled, no extrapolation), joined to GPU holders by cluster, namespace and pod. Money "
      "and per-unit figures are unknown, never $0, where a price is unknown or no work was "
      "done. Exit status: 0 on success, 2 on bad flags or bad input.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
