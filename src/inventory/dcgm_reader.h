// Collects dcgm-exporter series: which GPUs and MIG instances exist on which host, their
// activity (GR_ENGINE_ACTIVE ratio preferred, GPU_UTIL as fallback, under both the ≤4.8 and the
// ≥4.9 names), and which pods the exporter labelled them with. Handles the label spellings of
// every exporter version (UUID/uuid, Hostname/hostname, pod/pod_name, exported_pod), reads units
// from # HELP / # UNIT, and drops DCGM blank sentinels. Not thread-safe.
#pragma once

#include <compare>
#include <map>
#include <string>

#include "ingest/exposition.h"
#include "inventory/conflict_warnings.h"
#include "inventory/diagnostics.h"
#include "inventory/series_memo.h"
#include "inventory/series_timeline.h"

namespace gpucost {

struct DeviceKey {
  std::string cluster;
  std::string host;
  std::string uuid;
  int gpu_instance_id = -1;
  auto operator<=>(const DeviceKey&) const = default;
};

struct PodRef {
  std::string namespace_name;
  std::string pod;
  std::string container;
  std::string pod_uid;
  bool empty() const { return pod.empty(); }
  auto operator<=>(const PodRef&) const = default;
};

enum class UsageMetric : uint8_t { kGrEngine, kGpuUtil };
enum class ValueUnit : uint8_t { kRatio, kPercent, kUnknown };  // kUnknown: decide from values

struct DcgmDevice {
  int gpu_index = -1;
  std::string model;
  std::string profile;  // GPU_I_PROFILE as written
  PresenceSeries seen;
};

struct DcgmUsageKey {
  DeviceKey device;
  UsageMetric metric = UsageMetric::kGrEngine;
  PodRef pod;
  std::string vgpu;
  bool pod_from_direct_labels = false;  // pod/namespace, not exported_* (may be the exporter's)
  // AMD partition activity: the XCC (compute die) of the partition the series measures, -1 for
  // a series of the whole device. A partition's activity is the mean over its XCCs.
  int xcc = -1;
  auto operator<=>(const DcgmUsageKey&) const = default;
};

struct DcgmUsageSeries {
  ValueUnit unit = ValueUnit::kUnknown;
  PointSeries points;  // raw values, sentinels removed
  std::string source;
  uint64_t first_line = 0;
};

// Whose label the exporter put on a device, over time (any DCGM metric).
struct DcgmPodLabelKey {
  DeviceKey device;
  PodRef pod;
  bool vgpu = false;
  bool pod_from_direct_labels = false;
  auto operator<=>(const DcgmPodLabelKey&) const = default;
};

enum class DcgmPodLabels : uint8_t {
  kAuto,      // exported_* when present; plain pod/namespace are then the exporter's own
  kDirect,    // only pod/namespace/container (or the -o pod_name/... spelling)
  kExported,  // only exported_pod/exported_namespace/exported_container
};

struct DcgmHpcJobKey {
  DeviceKey device;
  std::string job;
  auto operator<=>(const DcgmHpcJobKey&) const = default;
};

struct DcgmData {
  std::map<DeviceKey, DcgmDevice> devices;
  std::map<DcgmHpcJobKey, PresenceSeries> hpc_jobs;  // hpc_job label per device, over time
  std::map<DcgmUsageKey, DcgmUsageSeries> usage;
  std::map<DcgmPodLabelKey, PresenceSeries> pod_labels;
  bool saw_exported_labels = false;
};

// True for DCGM's "no data" values: the int64 blanks (>= 0x7ffffffffffffff0), the FP64 blank
// (140737488355328.0 and above), NaN and infinities.
bool IsDcgmBlank(double v);

class DcgmReader {
 public:
  DcgmReader(std::string default_cluster, DcgmPodLabels mode)
      : default_cluster_(std::move(default_cluster)), mode_(mode) {}
  // A new input: metadata seen so far no longer applies. With `keep_series`, series ids go on
  // from the input before (ParsedFileCache) and what they resolved to stays: a series' unit is
  // taken from the metadata once, when it is first seen.
  void BeginSource(bool keep_series = false) {
    units_.clear();
    if (!keep_series) resolved_.Clear();
  }
  void OnMetadata(const MetadataView& m);
  bool OnSample(const SampleView& s, int64_t t_ms, const std::string& source, Diagnostics& diag);
  // Sorts every series and warns of the conflicting samples sorting finds. Call once, after the
  // last sample.
  void Finish(Diagnostics& diag);
  DcgmData& data() { return data_; }

 private:
  // What a series resolved to, reused for its further samples. Map nodes do not move, so the
  // pointers stay valid.
  struct Resolved {
    DcgmDevice* device = nullptr;
    PresenceSeries* pod_labels = nullptr;  // null: no pod
    PresenceSeries* hpc_job = nullptr;     // null: no job
    DcgmUsageSeries* usage = nullptr;      // null: not a usage metric
  };

  // Adds a sample to a usage series; two samples of one instant that disagree are told.
  void AddUsage(DcgmUsageSeries& series, int64_t t_ms, const SampleView& s,
                const std::string& source, Diagnostics& diag);

  std::string default_cluster_;
  DcgmPodLabels mode_;
  std::map<std::string, ValueUnit, std::less<>> units_;  // family -> unit read from HELP/UNIT
  DcgmData data_;
  SeriesCache<Resolved> resolved_;
  ConflictWarnings conflicts_;
};

}  // namespace gpucost
