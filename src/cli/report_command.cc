// `gpucost report`: attributes timestamped kube-state-metrics and dcgm-exporter series (files,
// folders, gzip) over a window and prints who held, used and wasted what.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/price_flags.h"
#include "cli/report_pipeline.h"
#include "core/log.h"
#include "core/strings.h"
#include "inventory/timeline_loader.h"
#include "pricing/price_fn.h"
#include "promsource/auth.h"
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
  std::string prometheus_api = "auto";
  promsource::AuthOptions auth;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  bool insecure_skip_verify = false;
  std::string window;
  std::string step = "60s";
  std::string by = "namespace";
  bool accumulate = false;
  std::string idle = "separate";
  std::string idle_scope = "cluster";
  PriceOptions price;
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
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(flags.price));

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
    GPUCOST_ASSIGN_OR_RETURN(popts_prom.api, promsource::ParsePrometheusApi(flags.prometheus_api));
    popts_prom.progress = ::isatty(STDERR_FILENO) != 0;
    popts_prom.client.http.ca_file = flags.ca_file;
    popts_prom.client.http.cert_file = flags.cert_file;
    popts_prom.client.http.key_file = flags.key_file;
    popts_prom.client.http.verify_tls = !flags.insecure_skip_verify;
    if (flags.cert_file.empty() != flags.key_file.empty()) {
      return Status::InvalidArgument("--cert-file and --key-file go together");
    }
    GPUCOST_ASSIGN_OR_RETURN(
        popts_prom.client.prepare_request,
        promsource::MakeAuthDecorator(flags.auth, std::make_shared<SystemClock>(),
                                      promsource::ProcessEnv()));
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
  cmd->add_option("--prometheus-api", f->prometheus_api,
                  "auto (remote read, else the query API) | remote-read | query")
      ->capture_default_str();
  cmd->add_option("--bearer-token-file", f->auth.bearer_token_file,
                  "With --prometheus: send this file's token as a bearer token (re-read per "
                  "request)");
  cmd->add_option("--bearer-token-env", f->auth.bearer_token_env,
                  "With --prometheus: send the token in this environment variable");
  cmd->add_option("--basic-auth-user", f->auth.basic_user, "With --prometheus: basic-auth user");
  cmd->add_option("--basic-auth-password-file", f->auth.basic_password_file,
                  "With --prometheus: file holding the basic-auth password");
  cmd->add_flag("--sigv4", f->auth.sigv4,
                "With --prometheus: sign requests with AWS SigV4 (Amazon Managed Prometheus); "
                "credentials from AWS_* variables or ~/.aws profiles");
  cmd->add_option("--sigv4-region", f->auth.sigv4_region,
                  "AWS region for --sigv4 (default: AWS_REGION, AWS_DEFAULT_REGION or the "
                  "profile's region)");
  cmd->add_option("--sigv4-service", f->auth.sigv4_service, "AWS service name for --sigv4")
      ->capture_default_str();
  cmd->add_option("--aws-profile", f->auth.aws_profile,
                  "AWS profile for --sigv4 (default: the AWS_* keys, else AWS_PROFILE or default)");
  cmd->add_option("--ca-file", f->ca_file, "With --prometheus: PEM CA bundle to verify the server");
  cmd->add_option("--cert-file", f->cert_file, "With --prometheus: PEM client certificate");
  cmd->add_option("--key-file", f->key_file, "With --prometheus: PEM key of --cert-file");
  cmd->add_flag("--insecure-skip-verify", f->insecure_skip_verify,
                "With --prometheus: do not verify the server's certificate (testing only)");
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
  AddPriceFlags(*cmd, f->price);
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
      "Nodes are priced by the price book (`gpucost prices` explains each node): overrides, rate "
      "card, built-in catalog by instance type, default rate. A node nothing prices has its money "
      "reported as unknown (null), never as zero; --format focus then fails, naming the nodes "
      "without a price. Exit status: 0 on success, 2 on bad flags or input.");
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
