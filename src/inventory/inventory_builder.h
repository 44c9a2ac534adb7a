// InventoryBuilder: turns exposition samples from kube-state-metrics, dcgm-exporter and the node
// agent (`gpucost agent`) into the inventory timeline (nodes, GPU units, holders, holdings) and the usage timeline the attribution
// engine consumes, with warnings for everything it had to skip or guess (docs/inputs.md). Feed it
// as an ExpositionHandler (one BeginSource per input) or through AddText, then call Build once.
// Not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/second_marks.h"
#include "core/time.h"
#include "ingest/exposition.h"
#include "inventory/agent_reader.h"
#include "inventory/dcgm_reader.h"
#include "inventory/diagnostics.h"
#include "inventory/hami_reader.h"
#include "inventory/ksm_reader.h"
#include "inventory/kube_state.h"
#include "inventory/mig_profiles.h"
#include "inventory/neuron_reader.h"
#include "inventory/stray_samples.h"
#include "model/inventory.h"
#include "model/usage.h"

namespace gpucost {

// The warning for an input without a sample of any series the timeline reads.
inline constexpr std::string_view kNoClusterData =
    "the input holds no kube-state-metrics, dcgm-exporter, node agent or Kubernetes API data";

// 2000-01-01 to 2100-01-01: the times a GPU cluster's telemetry (or a Slurm job) is plausibly
// stamped with.
inline constexpr Window kPlausibleSampleTimes{Instant(Duration(946'684'800'000)),
                                              Instant(Duration(4'102'444'800'000))};

struct TimelineOptions {
  std::string cluster = "default";      // when a series has no `cluster` label
  std::optional<Window> window;         // default: the span of the input
  Duration default_scrape_interval = std::chrono::seconds(30);  // for series with one sample
  Duration staleness = std::chrono::minutes(5);  // longest a sample stands for its series
  MigWeight mig_weight = MigWeight::kCompute;
  // Team chain, first non-empty wins, then the namespace name. "pod:<key>" or "namespace:<key>".
  std::vector<std::string> team_labels = {"pod:team", "namespace:team"};
  // Pod and namespace labels copied to holders (original or KSM spelling); empty: all.
  std::vector<std::string> label_allowlist;
  // Original label keys to restore from KSM's sanitized spelling, besides the well-known ones.
  std::vector<std::string> known_label_keys;
  DcgmPodLabels dcgm_pod_labels = DcgmPodLabels::kAuto;
  // Time given to samples written without a timestamp; unset: such samples are skipped.
  std::optional<Instant> untimestamped_at;
  // Samples timestamped outside this range are skipped with a warning naming file:line (one stray
  // timestamp must not stretch the input's span by decades); unset: every time is taken.
  std::optional<Window> plausible_times;
  // A ReplicaSet without kube_replicaset_owner whose name ends in a pod-template hash is taken
  // as a Deployment's.
  bool infer_deployment_from_replicaset = true;
  // HAMi nodes without GFD gpu.count or dcgm data: physical GPUs = capacity / this.
  int hami_device_split_count = 10;
  // What the Kubernetes API says about clusters (src/k8s), merged as AddKubeState does.
  std::vector<KubeState> kube_states;
};

// A job id dcgm-exporter put on a device's series (`hpc_job` label, from its
// --hpc-job-mapping-dir files), and when: which HPC (Slurm) job ran on which unit.
struct DeviceJob {
  NodeIndex node = kNoIndex;
  UnitIndex unit = kNoIndex;
  std::string job;                // as the mapping file wrote it
  std::vector<Interval> present;  // when series carried the label, clipped to the window
};

struct LoadedTimeline {
  Inventory inventory;
  Usage usage;
  Window span;    // first sample to last sample plus its series' scrape interval
  Window window;  // what the timelines are clipped to
  // No window was asked for: `window` is the span's steps (LoadInput), and the data covers it.
  bool window_from_data = false;
  std::vector<InputWarning> warnings;
  uint64_t samples = 0;       // samples read
  // With a window: its seconds with a sample of a series the timeline reads.
  SecondMarks sampled;
  uint64_t parse_errors = 0;  // malformed lines skipped
  std::vector<DeviceJob> device_jobs;  // dcgm hpc_job labels, for the Slurm source to match
  std::vector<AgentJobActivity> agent_jobs;  // node agent slurm_job series, likewise
};

// Whether an input's SampleView::series ids are its own, or go on from the input before.
enum class SeriesIds : uint8_t { kPerSource, kCarryOver };

class InventoryBuilder final : public ExpositionHandler {
 public:
  explicit InventoryBuilder(TimelineOptions options = {});
  ~InventoryBuilder() override;

  // Names the input the following samples come from (for file:line in warnings) and forgets
  // the previous input's # HELP units. With kCarryOver, the series ids of the inputs before mean
  // the same series in this one (ParsedFileCache): what they resolved to is kept.
  void BeginSource(std::string name, SeriesIds ids = SeriesIds::kPerSource);

  void OnSample(const SampleView& sample) override;
  void OnMetadata(const MetadataView& metadata) override;
  bool OnError(const ParseIssue& issue) override;

  // Parses exposition text (Prometheus text or OpenMetrics) held in memory.
  Status AddText(std::string text, std::string source_name = "<string>");

  // Adds what the Kubernetes API says about a cluster (src/k8s). Its identity wins over
  // kube-state-metrics'; its schedules fill in for pods no series shows (docs/k8s.md).
  void AddKubeState(KubeState state);

  // Builds the timelines. Call once; the builder is spent afterwards.
  Result<LoadedTimeline> Build();

 private:
  TimelineOptions options_;
  std::string source_;
  Diagnostics diag_;
  KsmReader ksm_;
  DcgmReader dcgm_;
  AgentReader agent_;
  HamiReader hami_;
  NeuronReader neuron_;
  std::vector<KubeState> kube_;
  uint64_t samples_ = 0;
  uint64_t errors_ = 0;
  uint64_t source_errors_ = 0;  // malformed lines of the current source
  // Malformed lines of one source warned about one by one; the rest are one folded warning.
  static constexpr uint64_t kMalformedLinesShown = 5;
  int64_t min_t_ms_ = INT64_MAX;
  int64_t max_t_ms_ = INT64_MIN;
  SecondMarks sampled_;
  SampleHours sample_hours_;  // for stray samples far from the rest (stray_samples.h)
  bool built_ = false;
};

}  // namespace gpucost
