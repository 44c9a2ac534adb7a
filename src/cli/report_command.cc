// `gpucost report`: attributes timestamped kube-state-metrics and dcgm-exporter series (files,
// folders, gzip) over a window and prints who held, used and wasted what.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_pipeline.h"
#include "core/log.h"
#include "core/strings.h"
#include "inventory/timeline_loader.h"
#include "pricing/price_fn.h"
#include "promsource/prometheus_source.h"
#include "report/render.h"
#include "slurm/slurm_timeline.h"

namespace gpucost::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string prometheus;
  std::string prometheus_chunk = "2h";
  std::string window;
  std::string step = "60s";
  std::string by = "namespace";
  bool accumulate = false;
  std::string idle = "separate";
  std::string idle_scope = "cluster";
  std::optional<double> price_per_gpu_hour;
  std::string prices;
  std::string format = "table";
  bool step_given = false;  // --step on the command line (FOCUS charge periods)
  std::string focus_provider = "gpucost";
  std::string cluster = "default";
  std::string team_labels = "pod:team,namespace:team";
  std::string staleness = "5m";
  int max_warnings = 20;
  std::string slurm_sacct;
  std::string slurm_time_zone = "local";
  int slurm_gpus_per_node = 0;
  std::string slurm_gpu_model;
};

void PrintWarnings(const LoadedTimeline& timeline, const AttributionSummary& summary, int max) {
  int printed = 0;
  size_t total = timeline.warnings.size() + summary.warnings.size();
  for (const InputWarning& w : timeline.warnings) {
    if (printed++ < max) LogWarn(w.ToString());
  }
  for (const std::string& w : summary.warnings) {
    if (printed++ < max) LogWarn(w);
  }
  if (total > static_cast<size_t>(max)) {
    LogWarn(StrCat(total - static_cast<size_t>(max), " more warnings (raise --max-warnings)"));
  }
}

Status Run(const ReportFlags& flags) {
  TimelineOptions topts;
  topts.cluster = flags.cluster;
  topts.team_labels.clear();
  for (std::string_view t : Split(flags.team_labels, ',')) {
    if (!Trim(t).empty()) topts.team_labels.emplace_back(Trim(t));
  }
  GPUCOST_ASSIGN_OR_RETURN(Duration staleness, ParseDuration(flags.staleness));
  topts.staleness = staleness;
  if (!flags.window.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(Window w, ParseWindow(flags.window));
    topts.window = w;
  }
  ReportSettings settings;
  GPUCOST_ASSIGN_OR_RETURN(settings.step, ParseDuration(flags.step));
  if (settings.step.count() <= 0) return Status::InvalidArgument("--step must be positive");
  settings.staleness = staleness;
  settings.accumulate = flags.accumulate;
  GPUCOST_ASSIGN_OR_RETURN(settings.by, ParseDimensions(flags.by));
  GPUCOST_ASSIGN_OR_RETURN(settings.idle.policy, ParseIdlePolicy(flags.idle));
  GPUCOST_ASSIGN_OR_RETURN(settings.idle.scope, ParseIdleScope(flags.idle_scope));
  const bool focus = flags.format == "focus";
  OutputFormat format = OutputFormat::kTable;
  if (!focus) {
    auto parsed = ParseOutputFormat(flags.format);
    if (!parsed.ok()) {
      return Status::InvalidArgument(
          StrCat("unknown output format \"", flags.format, "\" (expected table, csv, json, focus)"));
    }
    format = *parsed;
  } else if (flags.accumulate) {
    return Status::InvalidArgument(
        "--accumulate does not apply to --format focus: its charge periods are UTC days, or the "
        "--step buckets when --step is given");
  }
  PriceOptions popts;
  popts.usd_per_gpu_hour = flags.price_per_gpu_hour;
  popts.prices_file = flags.prices;
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(popts));

  if (!flags.prometheus.empty() && !flags.inputs.empty()) {
    return Status::InvalidArgument("give either --input or --prometheus, not both");
  }
  if (!flags.prometheus.empty() && !topts.window) {
    return Status::InvalidArgument("--prometheus needs --window");
  }
  const bool kubernetes = !flags.inputs.empty() || !flags.prometheus.empty();
  if (!kubernetes && flags.slurm_sacct.empty()) {
    return Status::InvalidArgument(
        "nothing to attribute: give --input or --prometheus and/or --slurm-sacct");
  }
  LoadedTimeline timeline;
  if (!flags.inputs.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(timeline, LoadTimelineFromFiles(flags.inputs, topts));
    if (timeline.samples == 0) {
      return Status::InvalidArgument("the input holds no timestamped samples");
    }
  }
  if (!flags.prometheus.empty()) {
    promsource::PrometheusSourceOptions popts_prom;
    popts_prom.url = flags.prometheus;
    GPUCOST_ASSIGN_OR_RETURN(popts_prom.chunk, ParseDuration(flags.prometheus_chunk));
    if (popts_prom.chunk.count() <= 0) {
      return Status::InvalidArgument("--prometheus-chunk must be positive");
    }
    popts_prom.progress = ::isatty(STDERR_FILENO) != 0;
    GPUCOST_ASSIGN_OR_RETURN(timeline, promsource::LoadTimelineFromPrometheus(popts_prom, topts));
    if (timeline.samples == 0) {
      return Status::InvalidArgument("Prometheus returned no samples for the window");
    }
  }
  if (!flags.slurm_sacct.empty()) {
    slurm::SlurmOptions sopts;
    sopts.cluster = flags.cluster;
    sopts.format.time_zone = flags.slurm_time_zone;
    sopts.default_gpus_per_node = flags.slurm_gpus_per_node;
    sopts.default_gpu_model = flags.slurm_gpu_model;
    // With Kubernetes input too, both timelines are attributed over the same window.
    sopts.window =
        kubernetes ? std::optional<Window>(timeline.window) : topts.window;
    GPUCOST_ASSIGN_OR_RETURN(slurm::SlurmTimeline slurm, slurm::LoadSacct(flags.slurm_sacct, sopts));
    if (!kubernetes) {
      timeline = slurm::ToLoadedTimeline(std::move(slurm));
    } else {
      slurm::MergeSlurmTimeline(timeline, std::move(slurm));
    }
  }
  if (timeline.window.empty()) return Status::InvalidArgument("the input covers no time");
  settings.window = timeline.window;
  if (focus) {
    GPUCOST_ASSIGN_OR_RETURN(FocusRun frun, RunFocusExport(timeline, price, settings,
                                                           flags.step_given, flags.focus_provider));
    PrintWarnings(timeline, frun.run.summary, flags.max_warnings);
    WriteFocusCsv(frun.table, std::cout);
    return Status::Ok();
  }
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, settings));
  PrintWarnings(timeline, run.summary, flags.max_warnings);
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
  cmd->add_option("--input", f->inputs,
                  "kube-state-metrics + dcgm-exporter files or folders (*.prom, *.txt, *.om, .gz; "
                  "- is stdin)");
  cmd->add_option("--prometheus", f->prometheus,
                  "Read the series from this Prometheus-compatible HTTP API instead of files, "
                  "e.g. http://prometheus:9090 (needs --window)");
  cmd->add_option("--prometheus-chunk", f->prometheus_chunk,
                  "Time span fetched per query with --prometheus")
      ->capture_default_str();
  cmd->add_option("--slurm-sacct", f->slurm_sacct,
                  "Slurm accounting: `sacct --parsable2` output with a header line (- is stdin); "
                  "with --input, both clusters are attributed together");
  cmd->add_option("--slurm-time-zone", f->slurm_time_zone,
                  "Time zone of sacct's times: local, UTC, +02:00 or an IANA name")
      ->capture_default_str();
  cmd->add_option("--slurm-gpus-per-node", f->slurm_gpus_per_node,
                  "Physical GPUs per Slurm node (0: the most its jobs held at once)")
      ->capture_default_str();
  cmd->add_option("--slurm-gpu-model", f->slurm_gpu_model,
                  "GPU model of the Slurm nodes (MIG fractions, the gpu_model dimension)");
  cmd->add_option("--window", f->window,
                  "START,END as RFC 3339 or unix seconds (default: the input's span)");
  cmd->add_option("--step", f->step, "Attribution step, e.g. 60s, 5m")->capture_default_str();
  cmd->add_option("--by", f->by,
                  "Dimensions: cluster, node, namespace, team, workload, workload_kind, pod, "
                  "container, gpu_model, mig_profile, capacity_type, label:KEY")
      ->capture_default_str();
  cmd->add_flag("--accumulate", f->accumulate, "One row per group for the whole window");
  cmd->add_option("--idle", f->idle, "Idle capacity: separate | proportional | even")
      ->capture_default_str();
  cmd->add_option("--idle-scope", f->idle_scope, "Share idle within: node | cluster")
      ->capture_default_str();
  cmd->add_option("--price-per-gpu-hour", f->price_per_gpu_hour,
                  "Flat $/GPU-hour (with --prices: the price for nodes no rule matches)");
  cmd->add_option("--prices", f->prices, "YAML rate card mapping node selectors to $/GPU-hour");
  cmd->add_option("--format", f->format,
                  "table | csv | json | focus (FinOps FOCUS 1.3 Cost and Usage CSV, "
                  "docs/focus.md)")
      ->capture_default_str();
  cmd->add_option("--focus-provider", f->focus_provider,
                  "With --format focus: ServiceProviderName, InvoiceIssuerName and the like")
      ->capture_default_str();
  cmd->add_option("--cluster", f->cluster, "Cluster name for series without a cluster label")
      ->capture_default_str();
  cmd->add_option("--team-labels", f->team_labels,
                  "Team label chain, first match wins, then the namespace name")
      ->capture_default_str();
  cmd->add_option("--staleness", f->staleness,
                  "Longest a sample stands for its series (usage and presence)")
      ->capture_default_str();
  cmd->add_option("--max-warnings", f->max_warnings, "Warnings printed to stderr")
      ->capture_default_str();
  cmd->footer(
      "Without a price (--price-per-gpu-hour or --prices), money is reported as unknown (null), "
      "never as zero; --format focus then fails, naming the nodes without a price. Exit status: "
      "0 on success, 2 on bad flags or input.");
  cmd->callback([f, cmd, &exit_code] {
    f->step_given = cmd->count("--step") > 0;
    const Status s = Run(*f);
    if (!s.ok()) {
      LogError(s.ToString());
      exit_code = 2;
    } else {
      exit_code = 0;
    }
  });
}

}  // namespace gpucost::cli
