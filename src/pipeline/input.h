// The sources a command or the server attributes (exposition files, a Prometheus-compatible
// store, the Kubernetes API, Slurm accounting, a ledger), named by an InputOptions, and the
// loading of the timeline they name. cli/input_flags.h fills an InputOptions from flags.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attribution/attributor.h"
#include "core/progress.h"
#include "core/result.h"
#include "core/time.h"
#include "ingest/parsed_file_cache.h"
#include "inventory/inventory_builder.h"
#include "pipeline/kube_input.h"
#include "pipeline/report_pipeline.h"
#include "promsource/auth.h"

namespace gpucost::ledger {
class RollupCache;
}  // namespace gpucost::ledger

namespace gpucost {

struct InputOptions {
  std::vector<std::string> inputs;
  std::string untimestamped_at;  // "", a time or "mtime" (cli/input_diagnosis.h)
  std::string prometheus;
  std::string prometheus_chunk = "2h";
  std::string prometheus_max_chunk = "24h";
  std::string prometheus_api = "auto";
  promsource::AuthOptions auth;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  bool insecure_skip_verify = false;
  KubeOptions kube;
  std::string label_allowlist;
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
  std::string slurm_account_teams;
  bool slurm_billing_max_tres = false;
  std::string ledger;
  std::vector<std::string> prometheus_headers;  // NAME=VALUE
  // --progress, --no-progress: the line while input is read (AddProgressFlags, by the batch
  // commands; serve has none and draws none when stderr is not a terminal).
  ProgressFlags progress;
  // Not a flag: set by a caller whose report is one bucket (accumulated), so whole sealed hours
  // and days of --ledger may come as roll-ups (ledger::ReadOptions).
  bool ledger_rollups = false;
  // Nor this: the output buckets of a report that is a time series (--every), so that roll-ups
  // come only where each lies inside one bucket; 0: one bucket, the window.
  Duration ledger_bucket{0};
  // Not a flag either: where a long-running reader keeps decoded roll-ups between reads.
  ledger::RollupCache* ledger_cache = nullptr;
  std::vector<std::string> ledger_clusters;  // with ledger: only these clusters' records
  size_t ledger_max_records = 0;  // with ledger: refuse windows of more records (0: no bound)
  // Nor these: a caller that reads one window after another (a report in segments) turns the
  // progress line off (it says its own) and keeps here the span remote read would ask next, so
  // that each read starts where the one before left off.
  bool prometheus_progress = true;
  std::shared_ptr<Duration> prometheus_span;
  // A store without samples for the window is no error (one segment of a longer window).
  bool prometheus_empty_ok = false;
  // Whether a window reaching beyond the data is warned about here (a segment of a longer
  // window is not: the segmented run says it once, for the whole window).
  bool warn_beyond_data = true;
};

// NAME=VALUE header flags (`flag` names them in errors) as (name, value) pairs.
Result<std::vector<std::pair<std::string, std::string>>> ParseHeaderFlags(
    const std::vector<std::string>& values, std::string_view flag);

struct LoadedInput {
  LoadedTimeline timeline;
  Duration staleness{0};  // --staleness, for the engine as well
  // With --ledger: the records to replay instead of an engine run, and their step.
  std::shared_ptr<const std::vector<CostRecord>> records;
  std::shared_ptr<const std::vector<RolledRecord>> rolled;  // and roll-ups (ledger_rollups)
  Duration step{0};
  bool progress = false;  // --progress (or a terminal): the engine draws its line too
  // With the Kubernetes API: the kinds it may go without, and which of them it refused (403).
  std::vector<KubeKindAccess> kube_kinds{};
};

// Points the settings at what was loaded: the window, the staleness, whether to draw progress,
// and with --ledger the records to replay and their step (which replaces --step).
void ApplyInput(const LoadedInput& input, ReportSettings& settings);

// Series besides the inventory's, read from the same source in the same pass: with --input it
// sees every sample of every file as the files are parsed once for the timeline; with
// --prometheus the samples of Metrics(), fetched with the inventory's series (same chunks, same
// requests) from the window's start minus SampleLookback(--staleness) to its end plus
// SampleLookahead(--staleness).
class SeriesTap : public ExpositionHandler {
 public:
  virtual std::vector<std::string> Metrics() const = 0;
  // Names the file (or store) the following samples come from, for file:line in messages.
  virtual void BeginSource(const std::string& name) = 0;
};

// Loads what the flags name over `window` (nullopt: the input's span); `step` bounds the
// interval of Slurm's usage samples. InvalidArgument for contradictory or missing sources, an
// input without samples, or a timeline that covers no time.
// `tap`, when given, also receives the series it asks for (see SeriesTap). `cache`, when given
// (and no tap), replays the --input files it holds from an earlier load (ParsedFileCache).
Result<LoadedInput> LoadInput(const InputOptions& flags, std::optional<Window> window,
                              Duration step, SeriesTap* tap = nullptr,
                              ParsedFileCache* cache = nullptr);

// Logs the loading and engine warnings, at most `max` of them, then how many were left out.
// The warning for a `window` whose data (`span`) covers only part of it, or nothing when it is
// covered whole.
std::optional<InputWarning> BeyondDataWarning(Window window, Window span);

void PrintWarnings(std::span<const InputWarning> loading, const AttributionSummary& summary,
                   int max);
inline void PrintWarnings(const LoadedTimeline& timeline, const AttributionSummary& summary,
                          int max) {
  PrintWarnings(timeline.warnings, summary, max);
}

}  // namespace gpucost
