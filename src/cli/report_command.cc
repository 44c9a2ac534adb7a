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
#include "slurm/sacct_runner.h"
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
  std::string cluster = "default";
  std::string team_labels = "pod:team,namespace:team";
  std::string staleness = "5m";
  int max_warnings = 20;
  std::string slurm_sacct;
  std::string slurm_time_zone = "local";
  int slurm_gpus_per_node = 0;
  std::string slurm_gpu_model;
  bool slurm = false;
  std::string slurm_sacct_bin = "sacct";
  std::string slurm_clusters;
  std::string slurm_billing_weights;
  bool slurm_billing_max_tres = false;
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
  GPUCOST_ASSIGN_OR_RETURN(OutputFormat format, ParseOutputFormat(flags.format));
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
  const bool slurm = flags.slurm || !flags.slurm_sacct.empty();
  if (!kubernetes && !slurm) {
    return Status::InvalidArgument(
        "nothing to attribute: give --input or --prometheus and/or --slurm-sacct or --slurm");
  }
  if (flags.slurm && !flags.slurm_sacct.empty()) {
    return Status::InvalidArgument("give either --slurm or --slurm-sacct, not both");
  }
  if (flags.slurm && !kubernetes && !topts.window) {
    return Status::InvalidArgument("--slurm needs --window (or --input to take the window from)");
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
  if (slurm) {
    slurm::SlurmOptions sopts;
    sopts.cluster = flags.cluster;
    sopts.format.time_zone = flags.slurm_time_zone;
    sopts.default_gpus_per_node = flags.slurm_gpus_per_node;
    sopts.default_gpu_model = flags.slurm_gpu_model;
    sopts.usage_sample_interval = std::min(settings.step, staleness);
    if (!flags.slurm_billing_weights.empty()) {
      GPUCOST_ASSIGN_OR_RETURN(sopts.billing, slurm::LoadBillingWeights(flags.slurm_billing_weights));
      sopts.billing->max_tres = sopts.billing->max_tres || flags.slurm_billing_max_tres;
    }
    // With Kubernetes input too, both timelines are attributed over the same window.
    sopts.window =
        kubernetes ? std::optional<Window>(timeline.window) : topts.window;
    slurm::SlurmTimeline piece;
    if (flags.slurm) {
      slurm::SacctRunOptions run;
      run.binary = flags.slurm_sacct_bin;
      run.window = *sopts.window;
      run.time_zone = flags.slurm_time_zone;
      for (std::string_view c : Split(flags.slurm_clusters, ',')) {
        if (!Trim(c).empty()) run.clusters.emplace_back(Trim(c));
      }
      GPUCOST_ASSIGN_OR_RETURN(std::string text, slurm::RunSacct(run));
      sopts.format.fields = slurm::SacctFields();
      GPUCOST_ASSIGN_OR_RETURN(piece, slurm::LoadSacctText(text, sopts, "sacct"));
    } else {
      GPUCOST_ASSIGN_OR_RETURN(piece, slurm::LoadSacct(flags.slurm_sacct, sopts));
    }
    if (!kubernetes) {
      timeline = slurm::ToLoadedTimeline(std::move(piece));
    } else {
      slurm::MergeSlurmTimeline(timeline, std::move(piece), flags.cluster);
    }
  }
  if (timeline.window.empty()) return Status::InvalidArgument("the input covers no time");
  settings.window = timeline.window;
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
  cmd->add_flag("--slurm", f->slurm,
                "Run sacct for the window (all users, all states) instead of reading a file");
  cmd->add_option("--slurm-sacct-bin", f->slurm_sacct_bin, "The sacct program run by --slurm")
      ->capture_default_str();
  cmd->add_option("--slurm-clusters", f->slurm_clusters,
                  "With --slurm: clusters to ask sacct for (--clusters), comma-separated");
  cmd->add_option("--slurm-billing-weights", f->slurm_billing_weights,
                  "`scontrol show partition` output (or slurm.conf PartitionName lines): "
                  "recompute each job's billing TRES from its partition's TRESBillingWeights");
  cmd->add_flag("--slurm-billing-max-tres", f->slurm_billing_max_tres,
                "Billing as with PriorityFlags=MAX_TRES (also read from a PriorityFlags line "
                "in the weights file)");
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
  cmd->add_option("--format", f->format, "table | csv | json")->capture_default_str();
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
      "never as zero. Exit status: 0 on success, 2 on bad flags or input.");
  cmd->callback([f, &exit_code] {
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
